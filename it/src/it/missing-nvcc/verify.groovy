def log = new File(basedir, 'build.log').text
assert log.contains('CUDA compiler /nonexistent/cuda/bin/nvcc (configured explicitly) does not exist')
assert log.contains('-Dkernels.nvcc=')
