def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 2, Failures: 0, Errors: 0')
assert new File(basedir, 'target/classes/META-INF/kernels/GpuKernels/opencl/GpuKernels.cl').isFile()
