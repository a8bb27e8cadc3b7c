// lz4_pkg: shared types of the LZ4 lane engines (docs/lz4.md).
//
/// Error codes reported on the decoder's output stream (out_err_o with out_code_o) and the layout
/// of the command record passed from the decoder's parser to its copy back end.
package lz4_pkg;

  // Why a block was rejected. The numbering is part of the documented interface (docs/lz4.md).
  typedef enum logic [3:0] {
    ErrNone        = 4'd0,
    ErrTruncated   = 4'd1,  // input ended inside a token, length, literal run or offset
    ErrOffsetZero  = 4'd2,  // offset field is 0
    ErrOffsetRange = 4'd3,  // offset reaches before the start of the block
    ErrOverrun     = 4'd4,  // a literal run or match would write past raw_size
    ErrEndRule     = 4'd5,  // a match starts after raw_size-12 or ends after raw_size-5
    ErrNoLastLits  = 4'd6,  // input ended right after a match (no final literal sequence)
    ErrShort       = 4'd7,  // input ended with fewer than raw_size bytes decoded
    ErrBadSize     = 4'd8   // raw_size is 0 or larger than the engine's MaxBlockBytes
  } err_e;

  // One decoded sequence (or part of one), packed as {ll[16:0], ml[16:0], off[15:0], last}: `ll`
  // literal bytes taken from the literal queue, then a match of `ml` bytes at distance `off`
  // (ml == 0: no match); `last` closes the block. (Plain bit fields rather than a packed struct:
  // Yosys 0.23 does not take struct-typed locals.)
  localparam int unsigned CmdW    = 17 + 17 + 16 + 1;
  localparam int unsigned CmdLl   = 34;  // lsb of ll
  localparam int unsigned CmdMl   = 17;  // lsb of ml
  localparam int unsigned CmdOff  = 1;   // lsb of off
  localparam int unsigned CmdLast = 0;

endpackage
