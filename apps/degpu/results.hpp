// The commands' results written once: a run's result as JSON (run, and each trial of --trials), and tables
// (a --history log, bench's trials) as CSV or as JSON rows, each value formatted by its column. run,
// schedule and bench write through these; write_outputs (output_files.hpp) puts the texts in their files.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "degpu/migration.hpp"
#include "degpu/problem.hpp"
#include "degpu/run.hpp"

namespace degpu::cli {

// A table cell: empty (CSV: nothing; JSON: null), an integer, a number (written with its column's format)
// or a string (written as it is: no commas or quotes in the tables degpu writes).
using TableCell = std::variant<std::monostate, long long, double, std::string>;

struct Column {
  std::string name;
  const char* format = "%.17g";  // a number's printf format
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // One row, a cell per column (std::logic_error otherwise: a bug in the command).
  void add(std::vector<TableCell> row);
  std::size_t rows() const { return rows_.size(); }
  // The header line, then a line per row.
  std::string csv() const;
  // Row r as a JSON object, the columns named `keys` only (every column when empty), in the table's order.
  nlohmann::ordered_json row_json(std::size_t r, const std::vector<std::string>& keys = {}) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<TableCell>> rows_;
};

// A run's result: best_f, best_error, distance_to_optimum (to the problem's known optimum), best_x (when
// with_x), evals, generations, nan_evals, stop_reason; MA-SW-Chains adds ls_applications and the phases' times.
nlohmann::ordered_json result_json(const Result& r, const Problem& p, bool with_x);
// The Euclidean distance of x to the problem's optimum, when it is known (Lastra et al.'s quality measure); null otherwise.
nlohmann::ordered_json distance_json(const Problem& p, const std::vector<double>& x);
// An archipelago's migration (run's "islands" object, bench's configuration's): count, migration_interval,
// migrants, topology, migration_policy.
nlohmann::ordered_json migration_json(const Migration& m);
// run --history: generation, evals, best_f, best_error (with f* known), wall_s of every sample.
Table history_table(const Result& r, const std::optional<double>& fstar);

}  // namespace degpu::cli
