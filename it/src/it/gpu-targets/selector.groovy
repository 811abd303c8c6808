// Runs only where nvcc is: this case builds CUDA kernels (a fatbin).
def dirs = (System.getenv('PATH') ?: '').split(File.pathSeparator).toList()
if (System.getenv('CUDA_HOME')) {
  dirs << System.getenv('CUDA_HOME') + '/bin'
}
dirs << '/usr/local/cuda/bin'
return dirs.any { new File(it, 'nvcc').canExecute() }
