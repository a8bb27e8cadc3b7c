// Device-image figures for analyze_model (built with ImageWriter in statistics-only mode).
#pragma once

#include "ndp/analysis.h"

namespace ndp {

// Encode every tensor of m as the device image would store it and fill r.tensors[i].fig.device,
// r.total.device (the whole image size), r.planes[..][..].device and r.regions.
Status add_device_figures(const Model& m, const AnalyzeOptions& opt, Report& r);

}  // namespace ndp
