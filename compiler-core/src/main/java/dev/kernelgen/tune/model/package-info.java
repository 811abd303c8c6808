/**
 * The learned cost model: gradient-boosted regression trees ({@link GradientBoostedTrees}) and the
 * rank metrics that judge a model by how it orders candidates ({@link Ranking}).
 *
 * <p><b>Why our own trees.</b> The issue asks for XGBoost-like trees from a maintained JVM library
 * whose licence is compatible with Apache-2.0, or a justified choice of our own. Of the libraries
 * the build can reach, Smile is GPL (excluded); {@code ml.dmlc:xgboost4j} is Apache-2.0 but a
 * native library (a per-platform shared object of tens of megabytes, loaded through JNI, with Scala
 * artifacts) that the compiler, which must run on any JDK host a Maven build runs on, would have to
 * ship and load; Tribuo's boosted trees are a wrapper of that same native XGBoost. The model needed
 * here is small: at most a few thousand training points (one per measured candidate) of {@link
 * dev.kernelgen.tune.features.LoopFeatures#SIZE} features, refit after each batch of measurements.
 * A few hundred lines of plain Java give what XGBoost's {@code hist} method does for it (squared
 * loss, histogram split finding over quantile bins, a depth limit, minimum leaf weight and
 * L2-regularised leaf values, shrinkage, row and column subsampling, sample weights), deterministic
 * for a seed, with no native code and no dependency.
 */
package dev.kernelgen.tune.model;
