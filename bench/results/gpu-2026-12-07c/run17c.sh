set -x
nvidia-smi --query-gpu=name,driver_version --format=csv
# A/B: the direct-read sector term off (-Dkg.nodirect=true, the pick before) and on, alternating,
# on the stereo cost volume of the new-user set.
for v in base1 D1 base2 D2; do
  case $v in base*) O="-Dkg.nodirect=true";; D*) O="";; esac
  timeout 55 env JAVA_TOOL_OPTIONS="$O" bench/gpu.sh floor $OUT/$v --targets CUDA --set new-user --only cost_volume --rounds 2 > $OUT/$v.log 2>&1; grep -E "cost_volume|rows" $OUT/$v.log
done
