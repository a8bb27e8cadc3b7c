// zstd_lits: decodes the Literals_Section of a compressed block (RFC 8878 section 3.1.1.3.1) from
// the block RAM into the literal RAM and sets up the executor's literal source.
//
/// Raw literals are copied 8 bytes per cycle; RLE literals are not stored (the executor repeats
/// the byte); Huffman literals (1 or 4 streams) run zstd_huf_stream decoders in parallel. Literal
/// sections up to 64 KiB alternate between the two halves of the literal RAM (stream k from byte
/// half x 64 KiB + k x 16 KiB), so they are written while the executor still copies the previous
/// block's literals from the other half (half_free_i); larger ones use the whole RAM (stream k from
/// k x 32 KiB) once the executor is idle (lit_free_i). Treeless blocks reuse the last tree.
/// Section end (lit_end_o) and regenerated size (lit_size_o) are valid at done_o.
`include "ndp_assert.svh"

module zstd_lits #(
  parameter int unsigned AddrW  = 17,
  parameter int unsigned LitWAW = 14
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               frame_start_i,   // forget the Huffman tree
  input  logic               start_i,
  input  logic               lit_free_i,      // executor idle: the whole literal RAM may be written
  input  logic [1:0]          half_free_i,     // no executor source left reading that half
  input  logic [AddrW:0]     blk_size_i,
  output logic               done_o,
  output logic               err_o,
  output zstd_pkg::err_e     code_o,
  output logic [AddrW:0]     lit_end_o,
  output logic [17:0]        lit_size_o,
  // executor literal source
  output logic               lit_rle_o,
  output logic [7:0]         lit_rle_byte_o,
  output logic [4*18-1:0]    lit_len_o,       // bytes per region
  output logic               lit_half_mode_o, // regions in half lit_half_o (else 4 x 32 KiB)
  output logic               lit_half_o,
  // forward reader
  output logic               fwd_init_o,
  output logic [AddrW-1:0]   fwd_init_addr_o,
  output logic [6:0]         fwd_consume_o,
  input  logic [63:0]        fwd_peek_i,
  input  logic [7:0]         fwd_nvalid_i,
  input  logic [AddrW+3:0]   fwd_bitpos_i,
  // Huffman tree
  output logic               huf_start_o,
  input  logic               huf_done_i,
  input  logic               huf_err_i,
  input  logic [AddrW:0]     huf_desc_end_i,
  // backward readers (inits) and stream decoders
  output logic [3:0]         bwd_init_o,
  output logic [4*(AddrW+1)-1:0] bwd_begin_o,
  output logic [4*(AddrW+1)-1:0] bwd_end_o,
  output logic [3:0]         hs_start_o,
  output logic [4*18-1:0]    hs_count_o,
  input  logic [3:0]         hs_busy_i,
  input  logic [3:0]         hs_err_i,
  // literal RAM write (raw copy)
  output logic               lw_we_o,
  output logic [LitWAW-1:0]  lw_addr_o,
  output logic [63:0]        lw_data_o
);
  typedef enum logic [3:0] {LIdle, LHdr, LRaw, LRle, LTree, LJump0, LJump, LStreams, LWait,
                            LDone, LErr} state_e;
  state_e state_q;

  logic [AddrW:0]  bsz_q, lend_q, p_q;
  logic [17:0]     size_q, rem_q;
  logic            four_q, huf_valid_q;
  logic [LitWAW-1:0] widx_q;
  zstd_pkg::err_e  code_q;
  logic [4*18-1:0] len_q;
  logic            rle_q;
  logic [7:0]      rleb_q;
  logic [AddrW:0]  sb_q [4];
  logic [AddrW:0]  se_q [4];
  logic [17:0]     seg;
  logic            hmode_q, half_q;
  logic            wfree;            // the literal RAM space of this section may be written
  assign wfree = hmode_q ? half_free_i[half_q] : lit_free_i;

  logic unused_bitpos;   // only the forward reader's data is used here
  assign unused_bitpos = ^fwd_bitpos_i;

  // Literals_Section_Header fields from the first 5 bytes.
  logic [39:0] h;
  logic [1:0]  ht, hsf;
  logic [2:0]  hl;
  logic [17:0] hregen, hcomp;
  logic        hfour;
  always_comb begin
    h      = fwd_peek_i[39:0];
    ht     = h[1:0];
    hsf    = h[3:2];
    hfour  = 1'b0;
    hcomp  = '0;
    if (ht[1] == 1'b0) begin
      unique case (hsf)
        2'd1:    begin hl = 3'd2; hregen = 18'(h[15:4]); end
        2'd3:    begin hl = 3'd3; hregen = 18'(h[23:4]); end
        default: begin hl = 3'd1; hregen = 18'(h[7:3]);  end
      endcase
    end else begin
      unique case (hsf)
        2'd2:    begin hl = 3'd4; hregen = 18'(h[17:4]); hcomp = 18'(h[31:18]); hfour = 1'b1; end
        2'd3:    begin hl = 3'd5; hregen = h[21:4];      hcomp = h[39:22];      hfour = 1'b1; end
        default: begin hl = 3'd3; hregen = 18'(h[13:4]); hcomp = 18'(h[23:14]); hfour = (hsf == 2'd1); end
      endcase
    end
  end
  assign seg = (size_q + 18'd3) >> 2;

  // Jump table (6 bytes) -> stream ranges.
  logic [AddrW:0] j1, j2, j3, jb;
  always_comb begin
    j1 = (AddrW+1)'(fwd_peek_i[15:0]);
    j2 = (AddrW+1)'(fwd_peek_i[31:16]);
    j3 = (AddrW+1)'(fwd_peek_i[47:32]);
    jb = p_q + (AddrW+1)'(6);
  end

  always_comb begin
    fwd_init_o      = 1'b0;
    fwd_init_addr_o = '0;
    fwd_consume_o   = '0;
    huf_start_o     = 1'b0;
    bwd_init_o      = '0;
    hs_start_o      = '0;
    lw_we_o         = 1'b0;
    lw_addr_o       = widx_q;
    lw_data_o       = fwd_peek_i;
    for (int k = 0; k < 4; k++) begin
      bwd_begin_o[k*(AddrW+1) +: AddrW+1] = sb_q[k];
      bwd_end_o[k*(AddrW+1) +: AddrW+1]   = se_q[k];
    end
    hs_count_o = len_q;
    unique case (state_q)
      LIdle: if (start_i) fwd_init_o = 1'b1;
      LHdr:  if (fwd_nvalid_i >= 8'd40) fwd_consume_o = 7'({hl, 3'b000});
      LRaw:  if (wfree && rem_q != '0 && (fwd_nvalid_i >= 8'd64 || (rem_q < 18'd8 && fwd_nvalid_i >= 8'({rem_q[2:0], 3'b000})))) begin
               lw_we_o       = 1'b1;
               fwd_consume_o = (rem_q >= 18'd8) ? 7'd64 : 7'({rem_q[2:0], 3'b000});
             end
      LTree: huf_start_o = 1'b1;
      LJump0: begin
               fwd_init_o      = 1'b1;
               fwd_init_addr_o = p_q[AddrW-1:0];
             end
      LStreams: if (wfree) begin
               bwd_init_o = four_q ? 4'b1111 : 4'b0001;
               hs_start_o = four_q ? 4'b1111 : 4'b0001;
             end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= LIdle;
      bsz_q <= '0; lend_q <= '0; p_q <= '0; size_q <= '0; rem_q <= '0;
      four_q <= 1'b0; huf_valid_q <= 1'b0; widx_q <= '0; code_q <= zstd_pkg::ErrNone;
      len_q <= '0; rle_q <= 1'b0; rleb_q <= '0; hmode_q <= 1'b0; half_q <= 1'b0;
      for (int k = 0; k < 4; k++) begin sb_q[k] <= '0; se_q[k] <= '0; end
    end else begin
      if (frame_start_i) huf_valid_q <= 1'b0;
      unique case (state_q)
        LIdle: if (start_i) begin
          bsz_q   <= blk_size_i;
          state_q <= LHdr;
        end
        LHdr: if (fwd_nvalid_i >= 8'd40) begin
          size_q <= hregen;
          rem_q  <= hregen;
          four_q <= hfour;
          // sections up to 64 KiB alternate between the RAM halves; RLE needs no RAM
          hmode_q <= hregen <= 18'd65536 && ht != 2'd1;
          widx_q  <= (hregen <= 18'd65536) ? LitWAW'({half_q, {(LitWAW-1){1'b0}}}) : '0;
          rle_q  <= (ht == 2'd1);
          len_q  <= {54'd0, hregen};
          code_q <= zstd_pkg::ErrLiterals;
          if (hregen > 18'd131072) state_q <= LErr;
          else if (ht == 2'd0) begin
            lend_q  <= (AddrW+1)'(hl) + (AddrW+1)'(hregen);
            state_q <= ((AddrW+2)'(hl) + (AddrW+2)'(hregen) > (AddrW+2)'(bsz_q)) ? LErr : LRaw;
          end else if (ht == 2'd1) begin
            lend_q  <= (AddrW+1)'(hl) + 1'b1;
            state_q <= ((AddrW+1)'(hl) + 1'b1 > bsz_q) ? LErr : LRle;
          end else begin
            lend_q <= (AddrW+1)'(hl) + (AddrW+1)'(hcomp);
            p_q    <= (AddrW+1)'(hl);
            if ((AddrW+2)'(hl) + (AddrW+2)'(hcomp) > (AddrW+2)'(bsz_q)) state_q <= LErr;
            else if (hfour && (hregen < 18'd6 || hcomp < 18'd10)) state_q <= LErr;
            else if (ht == 2'd3 && !huf_valid_q) begin
              code_q  <= zstd_pkg::ErrNoTable;
              state_q <= LErr;
            end else state_q <= (ht == 2'd2) ? LTree : (hfour ? LJump0 : LStreams);
          end
        end
        LRaw: begin
          if (rem_q == '0 && wfree) state_q <= LDone;
          else if (lw_we_o) begin
            widx_q <= widx_q + 1'b1;
            rem_q  <= (rem_q >= 18'd8) ? rem_q - 18'd8 : '0;
          end
        end
        LRle: if (fwd_nvalid_i >= 8'd8) begin
          rleb_q  <= fwd_peek_i[7:0];
          state_q <= LDone;
        end
        LTree: state_q <= LTree;  // waits below
        LJump0: state_q <= LJump;
        LJump: if (fwd_nvalid_i >= 8'd48) begin
          sb_q[0] <= jb;           se_q[0] <= jb + j1;
          sb_q[1] <= jb + j1;      se_q[1] <= jb + j1 + j2;
          sb_q[2] <= jb + j1 + j2; se_q[2] <= jb + j1 + j2 + j3;
          sb_q[3] <= jb + j1 + j2 + j3; se_q[3] <= lend_q;
          len_q   <= {size_q - 18'd3 * seg, seg, seg, seg};
          code_q  <= zstd_pkg::ErrHuffman;
          state_q <= (j1 == '0 || j2 == '0 || j3 == '0 ||
                      (AddrW+3)'(jb) + (AddrW+3)'(j1) + (AddrW+3)'(j2) + (AddrW+3)'(j3) >= (AddrW+3)'(lend_q))
                     ? LErr : LStreams;
        end
        LStreams: if (wfree) state_q <= LWait;
        LWait: if (hs_busy_i == '0) begin
          code_q  <= zstd_pkg::ErrHuffman;
          // only the streams of this block count (an unused decoder keeps its last job's error)
          state_q <= ((hs_err_i & (four_q ? 4'b1111 : 4'b0001)) != '0) ? LErr : LDone;
        end
        LDone: begin
          if (hmode_q) half_q <= !half_q;   // the next section takes the other half
          state_q <= LIdle;
        end
        LErr: state_q <= LIdle;
        default: state_q <= LIdle;
      endcase
      // Huffman tree description finished
      if (state_q == LTree && huf_done_i) begin
        code_q <= zstd_pkg::ErrHuffman;
        if (huf_err_i || huf_desc_end_i >= lend_q) begin
          huf_valid_q <= 1'b0;
          state_q     <= LErr;
        end else begin
          huf_valid_q <= 1'b1;
          p_q         <= huf_desc_end_i;
          state_q     <= four_q ? LJump0 : LStreams;
        end
      end
      // single stream: range [p, lit_end)
      if ((state_q == LHdr && fwd_nvalid_i >= 8'd40 && ht == 2'd3 && !hfour)) begin
        sb_q[0] <= (AddrW+1)'(hl);
        se_q[0] <= (AddrW+1)'(hl) + (AddrW+1)'(hcomp);
      end
      if (state_q == LTree && huf_done_i && !four_q) begin
        sb_q[0] <= huf_desc_end_i;
        se_q[0] <= lend_q;
      end
    end
  end

  assign done_o         = (state_q == LDone) || (state_q == LErr);
  assign err_o          = (state_q == LErr);
  assign code_o         = code_q;
  assign lit_end_o      = lend_q;
  assign lit_size_o     = size_q;
  assign lit_rle_o      = rle_q;
  assign lit_rle_byte_o = rleb_q;
  assign lit_len_o      = len_q;
  assign lit_half_mode_o = hmode_q;
  assign lit_half_o     = half_q;

  // ---- assertions: handshakes with zstd_frame, the tree builder, the stream decoders and the
  // literal RAM halves; the section's bounds --------------------------------------------------------
  logic sized;   // the header has been read
  assign sized = state_q != LIdle && state_q != LHdr;
  `NDP_ASSERT(start_idle_a, !start_i || state_q == LIdle)
  `NDP_ASSERT(huf_done_in_tree_a, !huf_done_i || state_q == LTree)
  `NDP_ASSERT(stream_start_idle_a, (hs_start_o & hs_busy_i) == '0)
  `NDP_ASSERT(stream_ram_free_a, hs_start_o == '0 || wfree)
  `NDP_ASSERT(raw_write_a, !lw_we_o || (state_q == LRaw && wfree && rem_q != '0))
  `NDP_ASSERT(half_write_a, !(lw_we_o && hmode_q) || widx_q[LitWAW-1] == half_q)
  `NDP_ASSERT(rem_bound_a, !sized || rem_q <= size_q)
  `NDP_ASSERT(size_bound_a, !sized || state_q == LErr || size_q <= 18'd131072)
  `NDP_ASSERT(half_size_a, !sized || !hmode_q || size_q <= 18'd65536)
  `NDP_ASSERT(stream_split_a, !(state_q == LStreams && four_q) || 32'(seg) * 3 <= 32'(size_q))
  `NDP_ASSERT(fwd_consume_a, fwd_consume_o == '0 || 8'(fwd_consume_o) <= fwd_nvalid_i)
`ifdef ZSTD_TRACE
  state_e prev_q;
  always_ff @(posedge clk_i) begin
    prev_q <= state_q;
    if (prev_q != state_q) $display("%0t %m: %s", $time, state_q.name());
  end
`endif
endmodule
