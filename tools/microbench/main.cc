// iobench-microbench: the shared formatter, every strategy's write loop, and the tracer's
// cost per call, as Google Benchmark cases. tools/microbench.sh runs it and keeps the JSON.
//
//   iobench-microbench [--iobench_dir=DIR] [--iobench_trace=0] [Google Benchmark flags]
#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "microbench.h"
#include "model/options.h"

int main(int argc, char** argv) {
  using iobench::microbench::Config;
  Config config;
  config.dir = iobench::default_dir();
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--iobench_dir=")) {
      config.dir = std::string(arg.substr(std::strlen("--iobench_dir=")));
    } else if (arg.starts_with("--iobench_trace=")) {
      config.trace = arg.substr(std::strlen("--iobench_trace=")) != "0";
    } else {
      rest.push_back(argv[i]);
    }
  }
  // A fixed threshold: glibc otherwise raises it after the first large free, and from then
  // on single-write's buffer would come back from the heap already faulted in, which no
  // fresh iobench child ever sees.
  ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);

  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  iobench::microbench::register_format_benchmarks();
  iobench::microbench::register_strategy_benchmarks(config);
  iobench::microbench::register_tracer_benchmarks(config);
  benchmark::AddCustomContext("iobench_dir", config.dir);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
