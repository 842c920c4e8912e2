#pragma once
// How a simulation's figures read for people, shared by the text and HTML reports: money, signed
// changes, counts with nouns, times as m:ss, and the one-line verdict. Non-finite inputs read as
// 0, so a report never shows "nan".

#include <cstdint>
#include <string>
#include <string_view>

#include "simulate/result.h"

namespace karpenter::simulate {

inline constexpr std::string_view kMinus = "−";  // U+2212, for signed numbers people read

double Finite(double value);
// "$41.20", "−$3.00".
std::string Money(double usd);
// "+3", "−2", "0".
std::string Delta(int64_t change);
// The change from `before` to `after` in whole percent ("−57%"); empty if `before` is not positive.
std::string PercentChange(double before, double after);
// "1 PDB violation", "3 PDB violations".
std::string Plural(int64_t count, std::string_view noun);
// An expected relative error as "±14 %"; empty when none is known (not positive).
std::string PlusMinus(double error);
// Seconds from the start as m:ss (minutes may exceed 59).
std::string MinutesSeconds(double seconds);
// "$41.20/h → $17.85/h (−57%), 0 PDB violations, max pending 48 s[, 3 unschedulable pods]".
std::string Verdict(const SimulationResult& result);

}  // namespace karpenter::simulate
