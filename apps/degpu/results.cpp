#include "results.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "degpu/islands.hpp"

namespace degpu::cli {
namespace {

std::string text_of(const TableCell& c, const Column& col) {
  if (const auto* i = std::get_if<long long>(&c)) return std::to_string(*i);
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* d = std::get_if<double>(&c)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, col.format, *d);
    return buf;
  }
  return std::string();
}

nlohmann::ordered_json json_of(const TableCell& c) {
  if (const auto* i = std::get_if<long long>(&c)) return *i;
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* d = std::get_if<double>(&c)) return *d;
  return nullptr;
}

nlohmann::ordered_json optional_json(const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nullptr; }

}  // namespace

void Table::add(std::vector<TableCell> row) {
  if (row.size() != columns_.size())
    throw std::logic_error("table row of " + std::to_string(row.size()) + " cells for " + std::to_string(columns_.size()) + " columns");
  rows_.push_back(std::move(row));
}

std::string Table::csv() const {
  std::string out;
  for (std::size_t c = 0; c < columns_.size(); ++c) out += (c ? "," : "") + columns_[c].name;
  out += '\n';
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c) out += ',';
      out += text_of(row[c], columns_[c]);
    }
    out += '\n';
  }
  return out;
}

nlohmann::ordered_json Table::row_json(std::size_t r, const std::vector<std::string>& keys) const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    bool wanted = keys.empty();
    for (const std::string& k : keys) wanted = wanted || k == columns_[c].name;
    if (wanted) j[columns_[c].name] = json_of(rows_.at(r)[c]);
  }
  return j;
}

nlohmann::ordered_json distance_json(const Problem& p, const std::vector<double>& x) {
  if (!p.optimum_x() || p.optimum_x()->size() != x.size()) return nullptr;
  double s = 0;
  for (std::size_t j = 0; j < x.size(); ++j) s += (x[j] - (*p.optimum_x())[j]) * (x[j] - (*p.optimum_x())[j]);
  return std::sqrt(s);
}

nlohmann::ordered_json migration_json(const Migration& m) {
  nlohmann::ordered_json j;
  j["count"] = m.islands;
  j["migration_interval"] = m.interval;
  j["migrants"] = m.migrants;
  j["topology"] = topology_name(m.topology);
  j["migration_policy"] = migration_policy_name(m.policy);
  return j;
}

nlohmann::ordered_json result_json(const Result& r, const Problem& p, bool with_x) {
  nlohmann::ordered_json j;
  j["best_f"] = r.best_f;
  j["best_error"] = optional_json(r.best_error);
  j["distance_to_optimum"] = distance_json(p, r.best_x);
  if (with_x) j["best_x"] = r.best_x;
  j["evals"] = r.evals;
  j["generations"] = r.generations;
  j["nan_evals"] = r.nan_evals;
  j["stop_reason"] = stop_reason_name(r.stop_reason);
  if (!r.memory_F.empty()) {  // an adaptive algorithm's final state (JADE, the SHADE family)
    j["final_np"] = r.final_np;
    j["archive_size"] = r.archive_size;
    j["memory_F"] = r.memory_F;
    j["memory_CR"] = r.memory_CR;
  }
  if (!r.islands.empty()) {  // an archipelago's islands, island 0 first
    auto& list = j["island_results"] = nlohmann::ordered_json::array();
    for (const IslandResult& i : r.islands) list.push_back({{"best_f", i.best_f}, {"evals", i.evals}, {"final_np", i.final_np}});
  }
  if (r.phases) {
    j["ls_applications"] = r.ls_applications;
    j["phases_s"] = {{"ga", r.phases->ga}, {"ls", r.phases->ls}, {"eval", r.phases->eval}, {"other", r.phases->other}};
  }
  return j;
}

Table history_table(const Result& r, const std::optional<double>& fstar) {
  Table t({{"generation"}, {"evals"}, {"best_f"}, {"best_error"}, {"wall_s"}});
  for (const auto& h : r.history) {
    std::vector<TableCell> row(5);  // (filled in place: g++ 12 warns of a string of a braced list of variants)
    row[0] = h.generation, row[1] = h.evals, row[2] = h.best_f, row[4] = h.wall_s;
    if (fstar) row[3] = h.best_f - *fstar;
    t.add(std::move(row));
  }
  return t;
}

}  // namespace degpu::cli
