def log = new File(basedir, 'build.log').text
// One build, all three mistakes, each a user error naming its spec method.
assert log.contains('3 errors in the kernel specs:')
assert log.contains("MistakesSpec.java: com.example.kernels.MistakesSpec.rowSum(): compute 'rowSum' uses reduce axis 'k2' outside a reduction over it")
assert log.contains("MistakesSpec.java: com.example.kernels.MistakesSpec.scale(): dim 'N' must be a lower-case Java identifier")
assert log.contains('MistakesSpec.java: com.example.kernels.MistakesSpec.addRow()')
assert !log.contains('MistakesSpec.fine()')
assert !log.contains('internal error')
assert !log.contains('outside of the scope that binds it')
assert !new File(basedir, 'target/generated-sources/kernels/com/example/kernels/MistakeKernels.java').exists()
