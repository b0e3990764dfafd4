//! A run's full distributions, named: what `--hlog` writes as HdrHistogram
//! interval logs and `diff` measures distribution shifts by. The report
//! holds their summaries ([`super::Stats`]); these are the counts behind
//! them.

use super::stats::Distribution;

/// The unit a distribution's values are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Microseconds (latencies, lag, clock error).
    Micros,
    /// Micrometres (divergence).
    Micrometres,
}

impl Unit {
    /// The unit's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Micros => "µs",
            Unit::Micrometres => "µm",
        }
    }
}

/// One named distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    /// Its tag: `latency-own`, `divergence-remote`, `latency-own.client-2`
    /// (no spaces or commas: an interval log's tag).
    pub tag: String,
    /// The report field its summary is (`input_latency_ms.own`).
    pub field: String,
    /// The unit of its values.
    pub unit: Unit,
    /// The values.
    pub values: Distribution,
}

/// A run's distributions, in a fixed order: the run's (input latency,
/// divergence from the authority and from the ideal world, own then
/// remote; lag and clock error when measured), and each client's own
/// input latency.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunDistributions {
    /// The run's distributions.
    pub named: Vec<Named>,
    /// Each client's own input latency, µs (`latency-own.client-N`, the
    /// report's `per_client[N].own_input_latency_ms`): at most one value a
    /// tick, so `u32` counts.
    pub per_client: Vec<Distribution<u32>>,
}

impl RunDistributions {
    /// Adds `values` as `tag`, summarised in the report as `field`.
    pub fn push(&mut self, tag: impl Into<String>, field: impl Into<String>, unit: Unit, values: Distribution) {
        self.named.push(Named { tag: tag.into(), field: field.into(), unit, values });
    }

    /// The run-wide distribution tagged `tag`.
    pub fn get(&self, tag: &str) -> Option<&Named> {
        self.named.iter().find(|n| n.tag == tag)
    }

    /// The input-latency histograms a report carries, encoded
    /// ([`super::LatencyHistograms`]); `None` without them.
    pub fn latency_histograms(&self) -> Option<super::LatencyHistograms> {
        Some(super::LatencyHistograms {
            own: self.get("latency-own")?.values.encode(),
            remote: self.get("latency-remote")?.values.encode(),
        })
    }
}
