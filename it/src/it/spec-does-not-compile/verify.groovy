def log = new File(basedir, 'build.log').text
assert log.contains('kernel specs do not compile')
assert log =~ /BadSpec\.java:\d+: error: cannot find symbol/
