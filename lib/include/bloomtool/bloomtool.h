// The library's entry header: `#include <bloomtool/bloomtool.h>` declares the whole public API
// (filters and their models, key reading and hashing, filter files, signatures and keys, merging,
// statistics, errors, the version, the foreign Guava and DCSO Bloom formats, the embeddable Reader,
// and the C API of bloomtool_c.h, which the static library implements too). Every header of
// lib/include/bloomtool is listed here; each also stands alone.
#pragma once

#include "bloomtool/atomic_file.h"
#include "bloomtool/batch_pipeline.h"
#include "bloomtool/bloom.h"
#include "bloomtool/bloom_build.h"
#include "bloomtool/bloomtool_c.h"
#include "bloomtool/build_header.h"
#include "bloomtool/dcso_bloom.h"
#include "bloomtool/error.h"
#include "bloomtool/filter.h"
#include "bloomtool/filter_file.h"
#include "bloomtool/guava_bloom.h"
#include "bloomtool/hash.h"
#include "bloomtool/hash_sort.h"
#include "bloomtool/index_model.h"
#include "bloomtool/interop_hash.h"
#include "bloomtool/key_reader.h"
#include "bloomtool/key_stream.h"
#include "bloomtool/load_filter.h"
#include "bloomtool/measure_keys.h"
#include "bloomtool/merge.h"
#include "bloomtool/model.h"
#include "bloomtool/normalise.h"
#include "bloomtool/output_target.h"
#include "bloomtool/reader.h"
#include "bloomtool/signature.h"
#include "bloomtool/size_calc.h"
#include "bloomtool/stats.h"
#include "bloomtool/version.h"
#include "bloomtool/word_buffer.h"
#include "bloomtool/xor_build.h"
#include "bloomtool/xor_filter.h"
