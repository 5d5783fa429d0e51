#!/bin/sh
# The dialect's layering (dialects/lib/Weave/Utils/CMakeLists.txt):
#   Utils <- IR <- Transforms
# IR (the op verifiers) must not include a Transforms header, and Utils (the
# arithmetic both share) neither an IR nor a Transforms one. CMake links
# them in that order; this keeps the includes honest too.
root=${1:?usage: $0 SOURCE_DIR}
d=$root/dialects
status=0
report() {
  if [ -n "$2" ]; then
    echo "$1:"
    echo "$2"
    status=1
  fi
}
report "the IR library includes Transforms headers" \
  "$(grep -rn '#include "weave/Dialect/Weave/Transforms/' \
      "$d/lib/Weave/IR" "$d/include/weave/Dialect/Weave/IR")"
report "the Utils library includes IR or Transforms headers" \
  "$(grep -rnE '#include "weave/Dialect/Weave/(IR|Transforms)/' \
      "$d/lib/Weave/Utils" "$d/include/weave/Dialect/Weave/Utils")"
[ $status -eq 0 ] && echo "layering: IR and Utils include no layer above them"
exit $status
