/**
 * The project's one JSON codec, on Jackson: manifests (pretty), tuning-log lines (one line each)
 * and the benchmarks' reports are written and read here. The runtime reads no JSON.
 */
package dev.kernelgen.json;
