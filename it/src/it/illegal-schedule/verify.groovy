def log = new File(basedir, 'build.log').text
assert log.contains('IllegalSpec.java: it.IllegalSpec.cpu()')
assert log.contains("parallel of reduce axis 'k'")
// The schedule method's place, not the operator's in front of it as well.
assert !log.contains('it.IllegalSpec.total(): IllegalSpec.java')
