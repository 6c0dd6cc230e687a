/*
 * src/plugin/hot/nccl_datatypes.h — the size of each NCCL datatype, by the
 * name NCCL's descriptors carry. Pure (a constant table, no state): the
 * size filter reads it on NCCL's threads (sampling.c), and the writer's
 * byte counts and bandwidth use it (writer/completion.c).
 */
#ifndef CCLSCOPE_NCCL_DATATYPES_H
#define CCLSCOPE_NCCL_DATATYPES_H

/* Bytes of one element of an NCCL datatype ("ncclFloat32" -> 4), 0 when
 * the name is unknown or NULL. */
unsigned cs_datatype_size(const char *datatype);

#endif
