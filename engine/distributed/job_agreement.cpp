#include "distributed/job_agreement.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace stepscope::distributed {

namespace {

using Clock = std::chrono::steady_clock;

const std::string kPrefix = "stepscope/";
const std::string kGoKey = kPrefix + "go";
const std::string kAbortKey = kPrefix + "abort";
const std::string kAbortClaims = kPrefix + "abort-claims";
const std::string kAcknowledged = kPrefix + "abort-read";
const std::string kWaitingKey = kPrefix + "waiting-for";

std::string settings_key(int rank) { return kPrefix + "settings/" + std::to_string(rank); }
std::string claims_key(int rank) { return kPrefix + "claims/" + std::to_string(rank); }

// Values are single lines; a newline or backslash in one is escaped.
std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[i + 1] == 'n' ? '\n' : text[i + 1];
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text;
}

std::string seconds(std::chrono::milliseconds d) {
  std::ostringstream text;
  text << static_cast<double>(d.count()) / 1000.0 << " s";
  return text.str();
}

JobSettings with_world(const AgreementSpec& spec) {
  JobSettings settings = spec.settings;
  settings.entries.insert(settings.entries.begin(), {"WORLD_SIZE", std::to_string(spec.world_size)});
  return settings;
}

[[noreturn]] void end_job(JobStore& store, const JobAbort& abort) { throw JobEnded(post_abort(store, abort)); }

// Ends the job when a rank posted why it cannot go on.
void throw_if_aborted(JobStore& store) {
  if (auto abort = posted_abort(store)) throw JobEnded(*abort);
}

void agree_as_rank_zero(JobStore& store, const AgreementSpec& spec, const JobSettings& mine, Clock::time_point deadline) {
  const auto start = Clock::now();
  std::set<int> missing;
  for (int r = 1; r < spec.world_size; ++r) missing.insert(r);
  const auto missing_list = [&] { return rank_list({missing.begin(), missing.end()}); };
  if (!missing.empty() && spec.say) {
    spec.say("waiting for " + std::to_string(missing.size()) + " of " + std::to_string(spec.world_size) +
             " ranks at " + spec.endpoint);
  }
  auto remind_at = start + spec.remind_every;
  while (!missing.empty()) {
    throw_if_aborted(store);
    for (auto it = missing.begin(); it != missing.end();) {
      const int r = *it;
      const auto text = store.get_if_set(settings_key(r));
      if (!text) {
        ++it;
        continue;
      }
      const JobSettings theirs = JobSettings::decode(*text);
      const std::string differ = JobSettings::differences(mine, 0, theirs, r);
      if (!differ.empty()) {
        end_job(store, {2, r, "the ranks were started with different settings: " + differ +
                                  "; every rank of a job needs the same options"});
      }
      it = missing.erase(it);
    }
    store.set(kWaitingKey, missing.empty() ? std::string() : missing_list());
    if (missing.empty()) break;
    const auto now = Clock::now();
    if (now >= deadline) {
      end_job(store, {1, -1, "gave up after " + seconds(spec.timeout) + " waiting at " + spec.endpoint + " for " +
                                 missing_list() + " of " + std::to_string(spec.world_size) +
                                 ", which never joined (not started, failed before joining, or given another "
                                 "MASTER_ADDR/MASTER_PORT)"});
    }
    if (now >= remind_at && spec.say) {
      spec.say("still waiting for " + missing_list() + " at " + spec.endpoint + " (" +
               seconds(std::chrono::duration_cast<std::chrono::milliseconds>(now - start)) + " of " +
               seconds(spec.timeout) + ")");
      remind_at = now + spec.remind_every;
    }
    std::this_thread::sleep_for(spec.poll);
  }
  store.set(kGoKey, mine.encode());
}

void agree_as_other_rank(JobStore& store, const AgreementSpec& spec, const JobSettings& mine,
                         Clock::time_point deadline) {
  while (true) {
    throw_if_aborted(store);
    if (const auto go = store.get_if_set(kGoKey)) {
      // Rank 0 checked the ranks it waited for; one beyond its world checks itself.
      const std::string differ = JobSettings::differences(JobSettings::decode(*go), 0, mine, spec.rank);
      if (!differ.empty()) {
        end_job(store, {2, spec.rank, "the ranks were started with different settings: " + differ +
                                          "; every rank of a job needs the same options"});
      }
      return;
    }
    if (Clock::now() >= deadline) {
      const auto waiting = store.get_if_set(kWaitingKey);
      const std::string why = waiting && !waiting->empty() ? "rank 0 is still waiting for " + *waiting
                              : waiting ? "rank 0 never said go"
                                        : "rank 0 never reported (is it running, and is MASTER_PORT its store?)";
      throw JobEnded({1, spec.rank, "the job did not start within " + seconds(spec.timeout) + " at " + spec.endpoint +
                                        ": " + why});
    }
    std::this_thread::sleep_for(spec.poll);
  }
}

}  // namespace

std::string JobSettings::encode() const {
  std::string text;
  for (const auto& [key, value] : entries) text += escape(key) + "=" + escape(value) + "\n";
  return text;
}

JobSettings JobSettings::decode(const std::string& text) {
  JobSettings settings;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    settings.entries.emplace_back(unescape(line.substr(0, equals)), unescape(line.substr(equals + 1)));
  }
  return settings;
}

std::string JobSettings::differences(const JobSettings& a, int rank_a, const JobSettings& b, int rank_b) {
  std::map<std::string, std::string> theirs(b.entries.begin(), b.entries.end());
  std::vector<std::string> keys;
  for (const auto& [key, value] : a.entries) keys.push_back(key);
  for (const auto& [key, value] : b.entries) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  const std::map<std::string, std::string> ours(a.entries.begin(), a.entries.end());
  const auto value_in = [](const std::map<std::string, std::string>& m, const std::string& key) {
    const auto it = m.find(key);
    return it == m.end() ? std::string("(not set)") : it->second.empty() ? std::string("(empty)") : it->second;
  };
  std::string text;
  for (const auto& key : keys) {
    const std::string va = value_in(ours, key), vb = value_in(theirs, key);
    if (va == vb) continue;
    text += (text.empty() ? "" : "; ") + key + " (rank " + std::to_string(rank_a) + ": " + va + ", rank " +
            std::to_string(rank_b) + ": " + vb + ")";
  }
  return text;
}

std::string JobAbort::encode() const {
  return std::to_string(status) + "\n" + std::to_string(origin_rank) + "\n" + message;
}

std::optional<JobAbort> JobAbort::decode(const std::string& text) {
  const size_t first = text.find('\n');
  const size_t second = first == std::string::npos ? first : text.find('\n', first + 1);
  if (second == std::string::npos) return std::nullopt;
  try {
    JobAbort abort;
    abort.status = std::stoi(text.substr(0, first));
    abort.origin_rank = std::stoi(text.substr(first + 1, second - first - 1));
    abort.message = text.substr(second + 1);
    return abort;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void agree_on_job(JobStore& store, const AgreementSpec& spec) {
  const auto deadline = Clock::now() + spec.timeout;
  const JobSettings mine = with_world(spec);
  if (store.add(claims_key(spec.rank), 1) > 1) {
    end_job(store, {2, spec.rank, "two processes were started as rank " + std::to_string(spec.rank) +
                                      " of the job at " + spec.endpoint + " (check RANK)"});
  }
  if (spec.rank == 0) return agree_as_rank_zero(store, spec, mine, deadline);
  store.set(settings_key(spec.rank), mine.encode());
  // A little past rank 0's own deadline, so that its word on missing ranks arrives first.
  agree_as_other_rank(store, spec, mine, deadline + std::chrono::seconds(1));
}

JobAbort post_abort(JobStore& store, const JobAbort& abort) {
  if (store.add(kAbortClaims, 1) == 1) {
    store.set(kAbortKey, abort.encode());
    return abort;
  }
  // Another rank claimed it first: its abort stands once written (it writes right after).
  const auto until = Clock::now() + std::chrono::seconds(2);
  while (Clock::now() < until) {
    if (auto posted = posted_abort(store)) return *posted;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return abort;
}

std::optional<JobAbort> posted_abort(JobStore& store) {
  const auto text = store.get_if_set(kAbortKey);
  if (!text) return std::nullopt;
  return JobAbort::decode(*text);
}

void acknowledge_abort(JobStore& store) { store.add(kAcknowledged, 1); }

bool wait_for_acknowledgements(JobStore& store, int world_size, Clock::time_point deadline,
                               std::chrono::milliseconds poll) {
  while (store.add(kAcknowledged, 0) < world_size - 1) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(poll);
  }
  return true;
}

}  // namespace stepscope::distributed
