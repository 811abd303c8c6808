def log = new File(basedir, 'build.log').text
assert log.contains('IllegalSpec.java: it.IllegalSpec.cpu()')
assert log.contains("parallel of reduce axis 'k'")
