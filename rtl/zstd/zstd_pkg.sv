// zstd_pkg: error codes and shared constants of the Zstandard decoder (docs/zstd.md).
package zstd_pkg;
  // Error code on the final output row of a job (out_err_o). Codes are stable: the testbench and
  // docs/zstd.md name them.
  typedef enum logic [7:0] {
    ErrNone       = 8'd0,
    ErrMagic      = 8'd1,   // neither a Zstandard nor a skippable frame magic number
    ErrTruncated  = 8'd2,   // the input ended inside a frame (or held no frame at all)
    ErrFrameHdr   = 8'd3,   // reserved descriptor bit, window too large for the format, dictionary ID
    ErrHistory    = 8'd4,   // the frame needs more history than HistBytes (documented limit)
    ErrBlockType  = 8'd5,   // reserved block type
    ErrBlockSize  = 8'd6,   // block larger than Block_Maximum_Size (128 KiB)
    ErrLiterals   = 8'd7,   // literals section header or sizes invalid
    ErrHuffman    = 8'd8,   // Huffman tree description or stream invalid
    ErrFse        = 8'd9,   // FSE table description invalid
    ErrSequences  = 8'd10,  // sequences header, modes or bitstream invalid
    ErrOffset     = 8'd11,  // offset 0, or pointing before the frame start / beyond the history
    ErrOutput     = 8'd12,  // output would exceed the buffer capacity or the declared content size
    ErrChecksum   = 8'd13,  // XXH64 content checksum mismatch
    ErrNoTable    = 8'd14,  // repeat / treeless mode without a previous table
    ErrContentSize = 8'd15  // frame ended with fewer bytes than its Frame_Content_Size
  } err_e;

  // Table RAM regions (512 entries each) of the FSE decoding tables.
  localparam logic [1:0] TabLL = 2'd0;
  localparam logic [1:0] TabOF = 2'd1;
  localparam logic [1:0] TabML = 2'd2;
  localparam logic [1:0] TabHW = 2'd3;  // Huffman weights

  // Packed FSE table entry: symbol, Number_of_Bits, Baseline.
  typedef struct packed {
    logic [7:0] sym;
    logic [3:0] nb;
    logic [8:0] base;
  } fse_ent_t;
endpackage
