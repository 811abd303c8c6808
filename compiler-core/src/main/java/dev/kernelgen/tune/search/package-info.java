/**
 * The guided search of a configuration space (Ansor's): {@link CandidateFeatures} lowers candidates
 * and computes their {@link dev.kernelgen.tune.features.LoopFeatures}; {@link LearnedCostModel}
 * learns the time of a candidate from them with {@link
 * dev.kernelgen.tune.model.GradientBoostedTrees}, trained on the measurements of the current task
 * as they arrive and warmed with the records of earlier operators and shapes (transfer); {@link
 * EvolutionarySearch} evolves a population by mutation and crossover with the model's prediction as
 * fitness and picks each batch to measure, epsilon-greedy. Any {@link
 * dev.kernelgen.tune.ConfigSpace} works, a hand template's or a generated sketch's: the search sees
 * knobs and lowered loops, nothing of the operator.
 */
package dev.kernelgen.tune.search;
