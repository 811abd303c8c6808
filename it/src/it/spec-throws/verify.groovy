def log = new File(basedir, 'build.log').text
assert log.contains('ThrowingSpec.java: it.ThrowingSpec.broken()')
assert log.contains("'m'")
