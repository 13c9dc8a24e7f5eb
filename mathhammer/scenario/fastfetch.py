"""A hint for compiled kernels that read games scattered over game-sized arrays: :func:`fetch` asks the CPU to bring
an element's cache line in ahead of its use (LLVM's ``prefetch``: no fault, no effect on any value), so the reads of
the games a few places ahead overlap the work on this one instead of waiting one after the other."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: how many games ahead the kernels fetch (measurements: ``benchmarks/RESULTS.md``, issue 26 session 10)
AHEAD = 16


def _emit(context: Any, builder: Any, aryty: Any, ary: Any, idx: list[Any]) -> None:
    arr = context.make_array(aryty)(context, builder, ary)
    ptr = cgutils.get_item_pointer(context, builder, aryty, arr, idx, wraparound=False, boundscheck=False)
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    # the name mangled by llvmlite for the pointer type it writes (``llvm.prefetch.p0i8`` for its ``i8*``; LLVM with
    # opaque pointers, 15 on, reads that as ``ptr`` and renames the call ``llvm.prefetch.p0``): right for either
    fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
    # a read (0), kept in every cache level (3), of data (1)
    builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])


@intrinsic
def fetch(typingctx: Any, arr: Any, i: Any) -> Any:
    """``fetch(arr, i)``: element ``i`` of the 1-D array ``arr`` brought toward the CPU (the index is not checked:
    a prefetch of an address outside the array does nothing)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        _emit(context, builder, sig.args[0], args[0], [args[1]])
        return context.get_dummy_value()

    return types.void(arr, i), codegen


@intrinsic
def fetch2(typingctx: Any, arr: Any, r: Any, c: Any) -> Any:
    """``fetch2(arr, r, c)``: element ``[r, c]`` of the 2-D array ``arr`` (as :func:`fetch`)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        _emit(context, builder, sig.args[0], args[0], [args[1], args[2]])
        return context.get_dummy_value()

    return types.void(arr, r, c), codegen


__all__ = ["AHEAD", "fetch", "fetch2"]
