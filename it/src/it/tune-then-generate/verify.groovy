def log = new File(basedir, 'build.log').text
def tuning = new File(basedir, 'src/main/kernels/tuning/TunedKernels.jsonl')
assert tuning.isFile()
def lines = tuning.readLines().findAll { it.trim() }
assert lines.size() >= 3
assert lines.every { it.startsWith('{"format":1,"operator":"TunedKernels/') }
// The search and its progress.
assert log.contains('tuning TunedKernels/scaleAdd (scaleAdd_n8192) for C')
assert log.contains('3 configuration(s) of [vector]')
assert log.contains('[####################] TunedKernels/scaleAdd: 3/3 trials, best ')
assert log.contains('skipping TunedKernels/scaleAdd: its shape has symbolic dims')
// generate took the record and said which configuration, and which builds kept the defaults.
// C records carry the ISA level they were measured at (the best level this CPU runs).
// scaleAdd's C schedule method races the generated schedules (kernels.tune.raceGenerated):
// generate embeds the faster record of either space.
assert log.contains('tuning TunedKernels/scaleAdd (scaleAdd_n8192, generated schedules) for C')
assert log =~ /operator 'scaleAdd' for C specialized to n=8192 at x86-64-v[234]: tuned configuration \{(vector=|[^}]*sketch=)/
assert log.contains('fell back to default schedules')
assert log.contains("operator 'scaleAdd' for C: its shape has symbolic dims")
if (log.contains('for OPENCL on OpenCL')) {
  // scaleAdd has no schedule method: its knobs are the generated schedule's (autosched).
  assert log =~ /operator 'scaleAdd' for OPENCL specialized to n=8192: tuned configuration \{[^}]*threads=/
}
def manifest = new File(basedir, 'target/classes/META-INF/kernels/TunedKernels/manifest.json').text
assert manifest.contains('"configuration": "tuned"')
if (log.contains('for OPENCL on OpenCL')) {
  // The article's thread-pair table, from the exhaustive search of a two-knob space.
  assert log.contains('tuning TunedKernels/depthwise (depthwise) for OPENCL')
  assert log.contains('median us, threads_x \\ threads_y:')
  assert log.contains('tuning TunedKernels/depthwise (depthwise, generated schedules) for OPENCL')
  assert log =~ /operator 'depthwise' for OPENCL: tuned configuration \{(threads_x=|[^}]*sketch=)/
}
