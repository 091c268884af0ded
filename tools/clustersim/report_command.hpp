#pragma once
// `clustersim report OUT_DIR`: report.html from a run's or a sweep's output folder, drawn by
// tools/report.py with matplotlib (Debian python3-matplotlib).
#include <string>

namespace clustersim {

/// Runs the report script on `out_dir`; throws InputError when the folder holds no results.
/// `slo_tpot_ms` > 0 draws the SLO line on a sweep's throughput-against-TPOT plot.
void write_report(const std::string& out_dir, double slo_tpot_ms);

}  // namespace clustersim
