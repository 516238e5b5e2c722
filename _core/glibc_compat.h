/* Oldest glibc symbol versions for the libm functions the core calls, so that
 * the wheel is manylinux_2_17 (manylinux2014, NumPy 2's own floor) rather than
 * manylinux_2_35.  Built on a new glibc, a call to exp, exp2, log, log2 or pow
 * binds to the GLIBC_2.29 versions and hypot to GLIBC_2.35; the versions
 * below exist in every glibc and call the same implementations (the 2.29 and
 * 2.35 ones dropped only the SVID error-handling wrapper, which in POSIX mode
 * returns the same values: +-inf on overflow, 0 on underflow), so results are
 * bit-identical.  They are what a build in a manylinux2014 image binds to.
 * `auditwheel show` in .ci/wheels checks the tag; tests/test_packaging.py
 * reads the symbol versions of the compiled core. */
#ifndef CHAINRULES_GLIBC_COMPAT_H
#define CHAINRULES_GLIBC_COMPAT_H

#if defined(__linux__) && defined(__GLIBC__) && !defined(CHAINRULES_NO_GLIBC_COMPAT)
#  if defined(__x86_64__)
#    define CHAINRULES_GLIBC_BASE "GLIBC_2.2.5"
#  elif defined(__aarch64__)
#    define CHAINRULES_GLIBC_BASE "GLIBC_2.17"
#  endif
#  ifdef CHAINRULES_GLIBC_BASE
__asm__(".symver exp,exp@" CHAINRULES_GLIBC_BASE);
__asm__(".symver exp2,exp2@" CHAINRULES_GLIBC_BASE);
__asm__(".symver log,log@" CHAINRULES_GLIBC_BASE);
__asm__(".symver log2,log2@" CHAINRULES_GLIBC_BASE);
__asm__(".symver pow,pow@" CHAINRULES_GLIBC_BASE);
__asm__(".symver hypot,hypot@" CHAINRULES_GLIBC_BASE);
/* lgamma (the native kernels' primal, chainrules/include/chainrules/
   scalar.pxd) binds to GLIBC_2.23, whose version only stopped setting
   signgam as a side effect: the same values. */
__asm__(".symver lgamma,lgamma@" CHAINRULES_GLIBC_BASE);
#  endif
#endif

#endif
