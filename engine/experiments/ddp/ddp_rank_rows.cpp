// A DDP row from every rank's case: the slowest rank's times, each rank's own row (memory per
// category at each point) and every rank's overlap picture, gathered on every rank.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

#include "distributed/rank_gather.h"
#include "experiments/ddp/ddp_case.h"
#include "experiments/ddp/ddp_memory_schema.h"

namespace stepscope {

namespace {

using Time = double DdpResult::*;
constexpr Time kTimes[] = {&DdpResult::step_ms,         &DdpResult::forward_ms,   &DdpResult::backward_ms,
                           &DdpResult::comm_ms,         &DdpResult::exposed_comm_ms, &DdpResult::optimizer_ms,
                           &DdpResult::max_param_diff};

std::string timeline_json(const RankStepTimeline& t) {
  nlohmann::json spans = nlohmann::json::array();
  for (const auto& s : t.spans) spans.push_back({to_string(s.lane), s.name, s.start_ms, s.end_ms});
  return nlohmann::json{{"rank", t.rank}, {"step", t.step}, {"spans", spans}}.dump();
}

RankStepTimeline timeline_from_json(const std::string& text, const DdpConfig& config) {
  const auto j = nlohmann::json::parse(text);
  RankStepTimeline t{config, j.at("rank").get<int>(), j.at("step").get<int>(), {}};
  for (const auto& s : j.at("spans")) {
    t.spans.push_back({parse_timeline_lane(s.at(0).get<std::string>()), s.at(1).get<std::string>(),
                       s.at(2).get<double>(), s.at(3).get<double>()});
  }
  return t;
}

}  // namespace

DdpRowSet combine_ranks(const DdpCase& done, distributed::Communicator& comm, const c10::Device& device) {
  const DdpResult& local = done.result();
  std::vector<double> mine{local.status == RunStatus::ok ? 0.0 : 1.0, static_cast<double>(local.optimizer_state_bytes),
                           static_cast<double>(local.comm_bytes)};
  constexpr size_t kTimesAt = 3;
  for (Time time : kTimes) mine.push_back(local.*time);
  // Memory per point and category, -1 where this rank has none (every rank sends as many).
  const size_t memory_at = mine.size();
  for (size_t p = 0; p < std::size(kDdpMemoryPoints); ++p) {
    for (size_t k = 0; k < profiling::kMemoryCategoryCount; ++k) {
      mine.push_back(p < local.memory.size() ? static_cast<double>(local.memory[p][k]) : -1.0);
    }
  }
  const auto all = distributed::gather_numbers(comm, mine, device);
  DdpRowSet set;
  set.combined = local;
  set.combined.rank = -1;
  set.combined.optimizer_state_bytes = -1;
  set.combined.comm_bytes = -1;
  set.combined.memory.clear();  // per rank only
  for (size_t k = 0; k < std::size(kTimes); ++k) set.combined.*kTimes[k] = -1;
  bool other_failed = false;
  for (int r = 0; r < comm.size(); ++r) {
    const auto& values = all[static_cast<size_t>(r)];
    DdpResult row = local;
    row.rank = r;
    if (r != comm.rank() && values[0] > 0) {
      other_failed = true;
      row.status = RunStatus::failed;
      row.message = "this rank failed the row";
    }
    row.optimizer_state_bytes = static_cast<int64_t>(values[1]);
    set.combined.optimizer_state_bytes = std::max(set.combined.optimizer_state_bytes, row.optimizer_state_bytes);
    row.comm_bytes = static_cast<int64_t>(values[2]);
    set.combined.comm_bytes = std::max(set.combined.comm_bytes, row.comm_bytes);
    for (size_t k = 0; k < std::size(kTimes); ++k) {
      row.*kTimes[k] = values[k + kTimesAt];
      set.combined.*kTimes[k] = std::max(set.combined.*kTimes[k], values[k + kTimesAt]);
    }
    row.memory.clear();
    if (values[memory_at] >= 0) {
      for (size_t p = 0; p < std::size(kDdpMemoryPoints); ++p) {
        profiling::CategoryBytes bytes{};
        for (size_t k = 0; k < bytes.size(); ++k) {
          bytes[k] = static_cast<int64_t>(values[memory_at + p * profiling::kMemoryCategoryCount + k]);
        }
        row.memory.push_back(bytes);
      }
    }
    set.per_rank.push_back(row);
  }
  if (other_failed && set.combined.status == RunStatus::ok) {
    set.combined.status = RunStatus::failed;
    set.combined.message = "another rank failed this row";
  }
  const std::string text = done.timeline().spans.empty() ? std::string() : timeline_json(done.timeline());
  for (const auto& rank_text : distributed::gather_text(comm, text, device)) {
    if (!rank_text.empty()) set.timelines.push_back(timeline_from_json(rank_text, local.config));
  }
  return set;
}

}  // namespace stepscope
