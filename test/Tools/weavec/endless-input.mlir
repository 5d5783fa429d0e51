// An endless input stops at the read limit (256 MiB) with an error, instead of
// reading until memory runs out; so does a directory.
// RUN: not weavec /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS
// RUN: not weave-opt /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS
// ENDLESS: input '/dev/zero' is larger than 268435456 bytes (an endless stream?); weave sources are far smaller
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: not weavec %t.dir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: weavec: error: cannot read input '{{.*}}.dir': Is a directory
