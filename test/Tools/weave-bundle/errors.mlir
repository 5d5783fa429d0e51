// RUN: not weave-bundle 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: printf 'WEAVEBND' > %t.short
// RUN: not weave-bundle %t.short 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not weave-bundle %t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: weave-bundle --help | FileCheck %s --check-prefix=HELP

// USAGE: usage: weave-bundle FILE...
// SHORT: weave-bundle: error: InvalidBundle: {{.*}}truncated bundle: expected at least 32 header bytes, found 8
// MISSING: weave-bundle: error: NotFound: cannot open bundle '{{.*}}.missing'
// HELP: usage: weave-bundle FILE...
