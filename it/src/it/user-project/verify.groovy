def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 2, Failures: 0, Errors: 0, Skipped: 0')

// The output parameter is named after its role, not after the last stage (Bias, beside bias).
def launcher = new File(basedir, 'target/generated-sources/kernels/com/example/kernels/LayerKernels.java').text
assert launcher.contains('public void denseBias(HostTensor x, HostTensor w, HostTensor bias, HostTensor out)')
assert launcher.contains('public HostTensor allocateDenseBiasOutput(HostTensor x, HostTensor w, HostTensor bias)')
assert launcher.contains('public void rowSum(HostTensor x, HostTensor out)')
assert !launcher.contains('bias2')

// The spec root is a test source root: test-compile compiled the spec against compiler-core (what
// an IDE does), and neither the spec nor the compiler reached the jar.
assert new File(basedir, 'target/test-classes/com/example/kernels/LayerSpec.class').isFile()
assert !new File(basedir, 'target/classes/com/example/kernels/LayerSpec.class').exists()
def jar = new java.util.jar.JarFile(new File(basedir, 'target/user-project-1.0.jar'))
try {
  def names = jar.entries().toList()*.name
  assert names.contains('com/example/kernels/LayerKernels.class')
  assert names.contains('META-INF/kernels/LayerKernels/manifest.json')
  assert !names.any { it.contains('LayerSpec') }
  assert !names.any { it.startsWith('dev/kernelgen/') }
} finally {
  jar.close()
}
