// zstd_enc_seqstore: takes the match finder's sequence records of a sequences-mode block, codes
// each offset with the repeat-offset history (RFC 8878 "Repeat offsets") and stores the sequences
// for the sequence encoder and the literal runs for the block writer.
//
/// One record per cycle. A record {lit_start, ll, off, ml, last} with ml > 0 is a sequence: its
/// offset value is 1..3 when the offset equals a repeat offset (ll > 0: rep1, rep2, rep3; ll = 0:
/// rep2, rep3, rep1 - 1, in that order) and offset + 3 otherwise, and the history is updated as a
/// decoder updates it; the entry {lit_start, ll, ml, ov} goes to index nseq. The last record
/// (ml = 0) holds the block's final literal run and goes to index nseq. Registers: the history,
/// the counters.
`include "ndp_assert.svh"

module zstd_enc_seqstore #(
  parameter int unsigned Depth = 16384,
  localparam int unsigned AW = $clog2(Depth),
  localparam int unsigned SeqW = 16 + 17 + 16 + 17 + 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,         // a block's records follow
  input  logic [47:0]     rep_i,           // history at the block start {rep3, rep2, rep1}
  input  logic            rec_valid_i,     // a record of this block
  input  logic [SeqW-1:0] rec_i,
  output logic            busy_o,          // records are taken (rec_valid_i is popped)
  output logic            done_o,          // level: the block's last record is stored
  output logic [14:0]     nseq_o,
  output logic [16:0]     nlit_o,
  output logic [47:0]     rep_o,           // history after the block
  // entry write {lit_start[15:0], ll[16:0], ml[16:0], ov[16:0]}
  output logic            we_o,
  output logic [AW-1:0]   waddr_o,
  output logic [66:0]     wdata_o
);
  logic        busy_q, done_q;
  logic [14:0] nseq_q;
  logic [16:0] nlit_q;
  logic [15:0] r1_q, r2_q, r3_q;

  logic [15:0] lit_start, off;
  logic [16:0] ll, ml;
  logic        last;
  assign {lit_start, ll, off, ml, last} = rec_i;

  // offset value and history update
  logic [16:0] ov;
  logic [15:0] r1_d, r2_d, r3_d;
  always_comb begin
    logic [1:0] hit;     // 0: new offset, 1: rep1 (no change), 2: rotate into rep2, 3: into rep3
    hit = 2'd0;
    ov  = 17'(off) + 17'd3;
    if (ll != '0) begin
      if (off == r1_q) begin
        ov = 17'd1; hit = 2'd1;
      end else if (off == r2_q) begin
        ov = 17'd2; hit = 2'd2;
      end else if (off == r3_q) begin
        ov = 17'd3; hit = 2'd3;
      end
    end else begin
      if (off == r2_q) begin
        ov = 17'd1; hit = 2'd2;
      end else if (off == r3_q) begin
        ov = 17'd2; hit = 2'd3;
      end else if (off == r1_q - 16'd1) begin
        ov = 17'd3; hit = 2'd0;
      end
    end
    r1_d = r1_q; r2_d = r2_q; r3_d = r3_q;
    unique case (hit)
      2'd1: ;
      2'd2: begin
        r2_d = r1_q; r1_d = off;
      end
      default: begin
        r3_d = r2_q; r2_d = r1_q; r1_d = off;
      end
    endcase
  end

  assign busy_o  = busy_q;
  assign done_o  = done_q;
  assign nseq_o  = nseq_q;
  assign nlit_o  = nlit_q;
  assign rep_o   = {r3_q, r2_q, r1_q};
  assign we_o    = busy_q && rec_valid_i;
  assign waddr_o = AW'(nseq_q);
  assign wdata_o = {lit_start, ll, last ? 17'd0 : ml, last ? 17'd0 : ov};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
      nseq_q <= '0;
      nlit_q <= '0;
      r1_q   <= 16'd1;
      r2_q   <= 16'd4;
      r3_q   <= 16'd8;
    end else if (start_i) begin
      busy_q <= 1'b1;
      done_q <= 1'b0;
      nseq_q <= '0;
      nlit_q <= '0;
      {r3_q, r2_q, r1_q} <= rep_i;
    end else if (busy_q && rec_valid_i) begin
      nlit_q <= nlit_q + ll;
      if (last) begin
        busy_q <= 1'b0;
        done_q <= 1'b1;
      end else begin
        nseq_q <= nseq_q + 15'd1;
        r1_q   <= r1_d;
        r2_q   <= r2_d;
        r3_q   <= r3_d;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Depth >= 2 && Depth <= 32768)
  `NDP_ASSERT(fits_a, !we_o || 32'(nseq_q) < Depth)
  `NDP_ASSERT(match_legal_a, !(we_o && !last) || (ml >= 17'd4 && off != '0))
  `NDP_ASSERT(final_no_match_a, !(we_o && last) || ml == '0)
endmodule
