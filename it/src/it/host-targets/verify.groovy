def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 3, Failures: 0, Errors: 0, Skipped: 0')
def res = new File(basedir, 'target/classes/META-INF/kernels/HostKernels')
assert new File(res, 'manifest.json').isFile()
assert new File(res, 'c/HostKernels.c').isFile()
assert new File(basedir, 'target/generated-sources/kernels/it/HostKernels.java').isFile()
assert new File(basedir, 'target/generated-sources/kernels/it/HostKernelsJava.java').isFile()
