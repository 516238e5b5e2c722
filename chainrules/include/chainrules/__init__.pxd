# The Cython interface of chainrules (chainrules.get_include() is the folder
# above this one): scalar.pxd (the real rows of the C scalar table: f, f′ and
# the fused (f, f′)), cscalar.pxd (the complex rows) and kernels.pxd (the
# derivative kernels they and the compiled core share).  See docs/native.md.
