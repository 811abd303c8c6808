def log = new File(basedir, 'build.log').text
assert log.contains('nothing to generate')
assert new File(basedir, 'target/classes/it/IncKernels.class').isFile()
