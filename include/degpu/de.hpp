// Differential evolution configuration: strategy DE/x/y/z, F, CR, population size, bounds repair.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "degpu/config.hpp"

namespace degpu {

// The mutation, the "x/y" of DE/x/y/z. v is the mutant of target i; r0, r1, ... are distinct random
// indices different from i; b is the best individual; pb a random one of the best ceil(p NP).
enum class Mutation {
  rand1,            // v = x_r0 + F (x_r1 - x_r2)
  rand2,            // v = x_r0 + F (x_r1 - x_r2) + F (x_r3 - x_r4)
  best1,            // v = x_b + F (x_r0 - x_r1)
  best2,            // v = x_b + F (x_r0 - x_r1) + F (x_r2 - x_r3)
  current_to_best1, // v = x_i + F (x_b - x_i) + F (x_r0 - x_r1)
  current_to_pbest1,// v = x_i + F (x_pb - x_i) + F (x_r0 - x_r1)   (JADE without archive)
  rand_to_best1,    // v = x_r0 + F (x_b - x_r0) + F (x_r1 - x_r2)  (as scipy's randtobest1)
};

// The crossover, the "z" of DE/x/y/z.
enum class Crossover {
  bin,  // binomial: coordinate j from the mutant when u_j < CR or j = jrand
  exp,  // exponential, the classic loop: from a random start n, L consecutive (cyclic) coordinates,
        // L grown one by one while u < CR and L < D
  nec,  // new exponential crossover (004_762e770b58ad0c6c): the same L drawn in O(1) from the geometric
        // distribution, L = min(D, ceil(ln u / ln CR)); L = 1 when CR = 0 and L = D when CR = 1
};

// What happens to a trial coordinate outside [lo, hi].
enum class Repair {
  reinit,    // a new uniform value in [lo, hi] (default)
  midpoint,  // halfway between the parent's value and the violated bound
  clip,      // the violated bound
  reflect,   // mirrored back into the box (folded as often as needed)
};

// How F and CR vary when given as ranges LO:HI.
enum class Dither {
  none,        // fixed (LO = HI)
  generation,  // one draw per generation, shared by all individuals
  individual,  // one draw per individual and generation
};

// The algorithm: classic DE (F and CR as configured), or jDE (Brest, Greiner, Boskovic, Zumer and Zumer
// 2006, "Self-adapting control parameters in differential evolution"): every individual carries its own
// F and CR; before its trial is made, F is redrawn with probability tau1 as F_l + rand x F_u (in
// [F_l, F_l + F_u)) and CR with probability tau2 as rand (in [0, 1)); the trial's F and CR replace the
// individual's only when the trial replaces it. JADE without archive (Zhang and Sanderson 2009): every
// trial draws CR ~ N(mu_CR, 0.1) and F ~ Cauchy(mu_F, 0.1); the means move towards the successful values
// after each generation (src/core/algorithms/jade.hpp). SHADE (Tanabe and Fukunaga 2013): H memories of
// mu_F and mu_CR, a trial drawing its means from a random one and its own p in [2/NP, 0.2], the weighted
// means of the successes written to one memory slot a generation, round robin; an archive of the parents
// that lost (src/core/algorithms/shade.hpp; docs/ALGORITHMS.md: every rule and its source). L-SHADE
// (Tanabe and Fukunaga 2014): SHADE whose population shrinks linearly with the evaluations from round(18 D)
// to 4 (lshade.hpp). jSO (Brest, Maucec and Boskovic 2017): L-SHADE with jSO's sizes, memories, stage
// rules and weighted mutation (jso.hpp).
enum class Algorithm { de, jde, jade, shade, lshade, jso };

struct Jde {
  double tau1 = 0.1, tau2 = 0.1;  // Brest et al. 2006, section 3
  double F_l = 0.1, F_u = 0.9;    // so F in [0.1, 1.0)
};

// --algorithm jade's settings (Zhang and Sanderson 2009, section III and the experiments' values). JADE
// does not read DEConfig's F and CR: mu_F and mu_CR are where its draws start.
struct Jade {
  double c = 0.1;                  // the means' learning rate, in (0, 1]
  double mu_F = 0.5, mu_CR = 0.5;  // their initial values
  double archive = 0;              // the archive's capacity as a fraction of NP (JADE's optional archive: 1); 0: none
};

// The most memory slots of SHADE (the memories are the population's shared state, a fixed array on the device).
inline constexpr int kShadeMaxH = 100;

// --algorithm shade's settings (Tanabe and Fukunaga 2013; docs/ALGORITHMS.md). SHADE does not read
// DEConfig's F, CR and p.
struct Shade {
  int H = 100;                         // memory slots, in [1, kShadeMaxH] (the paper: H = NP = 100)
  double M_F = 0.5, M_CR = 0.5;        // every slot's initial means
  double sigma_F = 0.1, sigma_CR = 0.1;  // the Cauchy's scale and the normal's deviation (the authors': 0.1)
  double p_min = 0, p_max = 0.2;       // each trial's p uniform in [p_min, p_max]; p_min 0: 2 / NP (the paper's)
  double archive = 1;                  // the archive's capacity as a fraction of NP (the paper's |A| = NP); 0: none
};

// --algorithm lshade's settings (the L-SHADE paper's, docs/ALGORITHMS.md). The initial NP is DEConfig::np
// (0: round(18 D)); the reduction is planned over the run's max_evals.
struct LShade {
  int H = 6;
  double M_F = 0.5, M_CR = 0.5;  // every slot's initial means
  double p = 0.11;               // the p-best fraction
  double archive = 2.6;          // the archive's capacity as a fraction of the live NP
  int np_min = 4;                // the population's final size
};

// --algorithm jso's settings (jSO's code, docs/ALGORITHMS.md). The initial NP is DEConfig::np (0:
// round(25 ln(D) sqrt(D))); the reduction and the stage rules are planned over the run's max_evals.
struct Jso {
  int H = 5;                     // the last slot fixed at means 0.9, 0.9
  double M_F = 0.3, M_CR = 0.8;  // the other slots' initial means
  double p_max = 0.25;           // p falls from p_max to p_max / 2
  double archive = 1;
  int np_min = 4;
};

struct Range {
  double lo, hi;
  bool fixed() const { return lo == hi; }
};

struct DEConfig {
  Mutation mutation = Mutation::rand1;
  Crossover crossover = Crossover::bin;
  int np = 0;                    // population size; 0: default_np(dim)
  Range F{0.5, 0.5};             // in (0, 2]
  Range CR{0.9, 0.9};            // in [0, 1]
  Dither dither = Dither::none;  // with ranges, defaults to generation (see resolve())
  double p = 0.1;                // current-to-pbest: fraction of the population that pb is drawn from
  Repair repair = Repair::reinit;
  Algorithm algorithm = Algorithm::de;  // jde: F and CR (fixed) are every individual's initial values
  Jde jde;
  Jade jade;  // with Algorithm::jade (mutation current-to-pbest/1, F and CR drawn by JADE)
  Shade shade;  // with Algorithm::shade (mutation current-to-pbest/1, F, CR and p drawn by SHADE)
  LShade lshade;  // with Algorithm::lshade
  Jso jso;        // with Algorithm::jso
};

// Strategy name DE/x/y/z without the "DE/": "rand/1/bin", "current-to-pbest/1/exp", "rand/1/nec".
// ConfigError listing the known ones for an unknown name.
struct Strategy {
  Mutation mutation;
  Crossover crossover;
};
Strategy parse_strategy(std::string_view name);
std::string strategy_name(Mutation m, Crossover c);
std::string_view mutation_name(Mutation m);
std::string_view crossover_name(Crossover c);
std::string_view repair_name(Repair r);
Repair parse_repair(std::string_view name);
Dither parse_dither(std::string_view name);
std::string_view dither_name(Dither d);
std::vector<std::string> list_strategies();
Algorithm parse_algorithm(std::string_view name);
std::string_view algorithm_name(Algorithm a);
std::vector<std::string_view> list_algorithms();  // the DE family's --algorithm names

// Distinct random indices besides i that mutation m reads (host and device).
DEGPU_HD constexpr int donors_needed(Mutation m) {
  switch (m) {
    case Mutation::rand1: return 3;
    case Mutation::rand2: return 5;
    case Mutation::best1: return 2;
    case Mutation::best2: return 4;
    case Mutation::current_to_best1: return 2;
    case Mutation::current_to_pbest1: return 2;
    case Mutation::rand_to_best1: return 3;
  }
  return 3;
}
DEGPU_HD constexpr int min_np(Mutation m) { return donors_needed(m) + 1; }
// Whether mutation m reads the population's best individual (host and device).
DEGPU_HD constexpr bool uses_best(Mutation m) {
  return m == Mutation::best1 || m == Mutation::best2 || m == Mutation::current_to_best1 || m == Mutation::rand_to_best1;
}
int default_np(int dim);        // 5 D, clamped to [20, 500] (Storn and Price advise 5 D to 10 D)

}  // namespace degpu
