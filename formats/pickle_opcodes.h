/* pickle_opcodes.h — the pickle opcodes (protocols 0 to 5), named once for the reader
 * (pickle_read.c), the direct decoder (dump_pickle_fast.c) and the writer (pickle_write.c).
 *
 * FR_PICKLE_OPCODES(X) lists each opcode as X(NAME, byte), in Python's pickletools order of
 * bytes; it makes the enum of OP_NAME constants below and, in pickle_read.c, the table of
 * names used in error messages ("bad memo id in BINGET at byte 12").
 */
#ifndef FRTRACE_PICKLE_OPCODES_H
#define FRTRACE_PICKLE_OPCODES_H

/* The table as written, in pickletools order of bytes. */
/* clang-format off */
#define FR_PICKLE_OPCODES(X)                                                                     \
    X(MARK, 0x28) X(STOP, 0x2e) X(POP, 0x30) X(POP_MARK, 0x31) X(DUP, 0x32) X(FLOAT, 0x46)       \
    X(INT, 0x49) X(BININT, 0x4a) X(BININT1, 0x4b) X(LONG, 0x4c) X(BININT2, 0x4d) X(NONE, 0x4e)  \
    X(PERSID, 0x50) X(BINPERSID, 0x51) X(REDUCE, 0x52) X(STRING, 0x53) X(BINSTRING, 0x54)       \
    X(SHORT_BINSTRING, 0x55) X(UNICODE, 0x56) X(BINUNICODE, 0x58) X(APPEND, 0x61)               \
    X(BUILD, 0x62) X(GLOBAL, 0x63) X(DICT, 0x64) X(EMPTY_DICT, 0x7d) X(APPENDS, 0x65)           \
    X(GET, 0x67) X(BINGET, 0x68) X(INST, 0x69) X(LONG_BINGET, 0x6a) X(LIST, 0x6c)               \
    X(EMPTY_LIST, 0x5d) X(OBJ, 0x6f) X(PUT, 0x70) X(BINPUT, 0x71) X(LONG_BINPUT, 0x72)          \
    X(SETITEM, 0x73) X(TUPLE, 0x74) X(EMPTY_TUPLE, 0x29) X(SETITEMS, 0x75) X(BINFLOAT, 0x47)    \
    X(PROTO, 0x80) X(NEWOBJ, 0x81) X(EXT1, 0x82) X(EXT2, 0x83) X(EXT4, 0x84) X(TUPLE1, 0x85)    \
    X(TUPLE2, 0x86) X(TUPLE3, 0x87) X(NEWTRUE, 0x88) X(NEWFALSE, 0x89) X(LONG1, 0x8a)           \
    X(LONG4, 0x8b) X(BINBYTES, 0x42) X(SHORT_BINBYTES, 0x43) X(SHORT_BINUNICODE, 0x8c)          \
    X(BINUNICODE8, 0x8d) X(BINBYTES8, 0x8e) X(EMPTY_SET, 0x8f) X(ADDITEMS, 0x90)                \
    X(FROZENSET, 0x91) X(NEWOBJ_EX, 0x92) X(STACK_GLOBAL, 0x93) X(MEMOIZE, 0x94) X(FRAME, 0x95) \
    X(BYTEARRAY8, 0x96) X(NEXT_BUFFER, 0x97) X(READONLY_BUFFER, 0x98)
/* clang-format on */

enum pickle_opcode {
#define FR_PICKLE_OPCODE_ENUM(name, byte) OP_##name = byte,
    FR_PICKLE_OPCODES(FR_PICKLE_OPCODE_ENUM)
#undef FR_PICKLE_OPCODE_ENUM
};

#endif
