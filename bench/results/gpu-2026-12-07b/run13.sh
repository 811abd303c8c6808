set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
ONLY=user_conv1d_s2_gelu,user_conv2d_nhwc,user_conv3d,user_conv3x3s2,user_depthwise_nhwc_s2,user_dilated_conv,user_lrn,user_preact_depthwise,conv2d_1x64x56x56_f64
for v in base1 P1 base2 P2; do
  case $v in base*) O="";; P*) O="-Dkg.gpupad=true";; esac
  timeout 130 env JAVA_TOOL_OPTIONS="$O" bench/gpu.sh floor $OUT/$v --targets CUDA --only $ONLY --rounds 3 > $OUT/$v.log 2>&1; grep -E "^(user|matmul|conv)|rows" $OUT/$v.log
done
