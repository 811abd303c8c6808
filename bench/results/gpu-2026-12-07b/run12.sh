set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
cat .device/prepared-at.txt
ONLY=conv2d_winograd2,user_avg_pool3_s1,user_conv3d,user_depthwise_nhwc_s2,user_dilated_conv,user_grouped_conv,user_max_pool_nhwc,user_pointwise_1x256,user_pointwise_s2,user_swiglu,user_transposed_matmul,conv2d_1x64x56x56_f64
for v in base1 M1 base2 M2; do
  case $v in base*) O="";; M*) O="-Dkg.multistart=true";; esac
  timeout 130 env JAVA_TOOL_OPTIONS="$O" bench/gpu.sh floor $OUT/$v --targets CUDA --only $ONLY --rounds 3 > $OUT/$v.log 2>&1; grep -E "^(user|matmul|conv)|rows" $OUT/$v.log
done
