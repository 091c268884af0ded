#pragma once
// 128-bit unsigned arithmetic (a GCC/Clang extension) for exact rate and random-range maths.
namespace clustersim {
__extension__ using uint128 = unsigned __int128;
__extension__ using int128 = __int128;
}  // namespace clustersim
