#include "models/operator_tree.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace stepscope::views {

namespace {

class TreeBuilder {
 public:
  explicit TreeBuilder(bool group_by_shapes) : group_by_shapes_(group_by_shapes) {}

  void add(const profiling::OperatorStats& stats) {
    int parent = -1;
    for (const auto& range : stats.range_path) parent = range_node(parent, range);
    const int op = op_node(parent, stats);
    OperatorTreeNode& node = at(op);
    node.has_cpu = stats.name != profiling::kOutsideOperators;
    if (std::find(node.shapes.begin(), node.shapes.end(), stats.input_shapes) == node.shapes.end()) {
      node.shapes.push_back(stats.input_shapes);
    }
    node.input_shapes = node.shapes.size() == 1 ? node.shapes.front() : std::string();
    // The kernels outside every operator were launched, not called: their launches count (finish).
    if (node.has_cpu) node.calls += stats.calls;
    node.total_cpu_ns += stats.total_cpu_ns;
    node.self_cpu_ns += stats.self_cpu_ns;
    node.self_gpu_ns += stats.self_gpu_ns;
    node.total_gpu_ns += stats.total_gpu_ns;
    for (const auto& kernel : stats.kernels) add_kernel(op, kernel);
  }

  OperatorTree finish() {
    sum_ranges();
    for (auto& node : tree_.nodes) {
      if (node.kind != OperatorNodeKind::op) continue;
      if (!node.has_cpu) {
        for (int k : node.children) node.calls += at(k).calls;
      }
      // Merged kernels, like the profile's own, largest first.
      std::stable_sort(node.children.begin(), node.children.end(), [this](int a, int b) {
        return at(a).total_gpu_ns > at(b).total_gpu_ns;
      });
      for (size_t i = 0; i < node.children.size(); ++i) at(node.children[i]).row = static_cast<int>(i);
      tree_.gpu_ns += node.self_gpu_ns;
    }
    return std::move(tree_);
  }

 private:
  OperatorTreeNode& at(int index) { return tree_.nodes[static_cast<size_t>(index)]; }

  int add_node(int parent, OperatorTreeNode node) {
    const int index = static_cast<int>(tree_.nodes.size());
    std::vector<int>& siblings = parent < 0 ? tree_.roots : at(parent).children;
    node.parent = parent;
    node.row = static_cast<int>(siblings.size());
    siblings.push_back(index);
    tree_.nodes.push_back(std::move(node));
    return index;
  }

  int range_node(int parent, const std::string& name) {
    const auto key = std::make_pair(parent, name);
    const auto found = ranges_.find(key);
    if (found != ranges_.end()) return found->second;
    OperatorTreeNode node;
    node.kind = OperatorNodeKind::range;
    node.name = name;
    node.full_name = name;
    return ranges_[key] = add_node(parent, std::move(node));
  }

  int op_node(int parent, const profiling::OperatorStats& stats) {
    const auto key = std::make_tuple(parent, stats.name, group_by_shapes_ ? stats.input_shapes : std::string());
    const auto found = ops_.find(key);
    if (found != ops_.end()) return found->second;
    OperatorTreeNode node;
    node.kind = OperatorNodeKind::op;
    node.name = stats.name;
    node.full_name = stats.name;
    return ops_[key] = add_node(parent, std::move(node));
  }

  void add_kernel(int op, const profiling::OperatorKernel& kernel) {
    const auto key = std::make_pair(op, kernel.name);
    auto found = kernels_.find(key);
    if (found == kernels_.end()) {
      OperatorTreeNode node;
      node.kind = OperatorNodeKind::kernel;
      node.name = kernel.short_name.empty() ? kernel.name : kernel.short_name;
      node.full_name = kernel.name;
      node.category = kernel.category;
      node.has_cpu = false;
      found = kernels_.emplace(key, add_node(op, std::move(node))).first;
    }
    OperatorTreeNode& node = at(found->second);
    node.calls += kernel.launches;
    node.self_gpu_ns += kernel.total_ns;
    node.total_gpu_ns += kernel.total_ns;
  }

  // A child always comes after its parent in `nodes`: from the last node back, each range's
  // children are complete before the range is added to its own parent.
  void sum_ranges() {
    for (int i = static_cast<int>(tree_.nodes.size()) - 1; i >= 0; --i) {
      OperatorTreeNode& node = at(i);
      if (node.kind == OperatorNodeKind::range) {
        // See build_operator_tree: a range's total is its operators' self time, counted once.
        node.total_cpu_ns = node.self_cpu_ns;
        node.total_gpu_ns = node.self_gpu_ns;
      }
      if (node.parent < 0 || node.kind == OperatorNodeKind::kernel) continue;
      OperatorTreeNode& range = at(node.parent);
      if (node.has_cpu) range.calls += node.calls;  // operator calls, not kernel launches
      range.self_cpu_ns += node.self_cpu_ns;
      range.self_gpu_ns += node.self_gpu_ns;
    }
  }

  bool group_by_shapes_;
  OperatorTree tree_;
  std::map<std::pair<int, std::string>, int> ranges_;
  std::map<std::tuple<int, std::string, std::string>, int> ops_;
  std::map<std::pair<int, std::string>, int> kernels_;
};

}  // namespace

OperatorTree build_operator_tree(const profiling::OperatorProfile& profile, bool group_by_shapes) {
  TreeBuilder builder(group_by_shapes);
  for (const auto& stats : profile.operators) builder.add(stats);
  return builder.finish();
}

}  // namespace stepscope::views
