// zstd_enc_litgather: copies a sequences block's literals, run after run, out of the input ring into
// a contiguous buffer (zstd_encoder's literal buffer, for Huffman-coded literals) and into the
// histogram, InBytes bytes per cycle.
///
/// Runs are the sequence RAM's entries 0..nseq ({lit_start, ll}; the last is the block's final
/// literals). The RAM is read every cycle at the entry after the one on seq_data_i, so a run that
/// fits one read takes one cycle. A run is read from the ring InBytes bytes at a time (the ring's
/// data comes the cycle after the address); each read is written the next cycle at the buffer's
/// fill level and counted (wr_o, wr_data_o, wr_cnt_o). done_o is a level from the cycle after the
/// last write until the next start. Registers: the entry and run position, the bytes left of the run,
/// the read in flight, the fill level.
`include "ndp_assert.svh"

module zstd_enc_litgather #(
  parameter int unsigned InBytes = 16,
  localparam int unsigned ICW    = $clog2(InBytes + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,
  input  logic [14:0]          nseq_i,       // entries 0..nseq_i, held while busy
  output logic [14:0]          seq_addr_o,   // read every cycle, data the next cycle
  input  logic [16+17-1:0]     seq_data_i,   // {lit_start[15:0], ll[16:0]}
  output logic [15:0]          ring_pos_o,
  input  logic [InBytes*8-1:0] ring_data_i,  // bytes from ring_pos_o of the cycle before
  output logic                 wr_o,
  output logic [15:0]          wr_pos_o,     // literal index of wr_data_o's byte 0
  output logic [InBytes*8-1:0] wr_data_o,
  output logic [ICW-1:0]       wr_cnt_o,
  output logic                 done_o,
  output logic [16:0]          nlit_o        // literals written (valid with done_o)
);
  typedef enum logic [1:0] {GIdle, GRun, GDrain, GDone} st_e;
  st_e st_q;
  logic [14:0] e_q;                  // entry on seq_data_i (when sv_q)
  logic        sv_q;
  logic [15:0] pos_q;
  logic [16:0] left_q, fill_q;
  logic [ICW-1:0] fly_q;             // bytes of the read in flight

  logic        load, rd, more;
  logic [15:0] rpos;
  logic [16:0] rleft;
  logic [ICW-1:0] rn;
  always_comb begin
    more  = 32'(e_q) <= 32'(nseq_i);
    load  = st_q == GRun && left_q == '0 && sv_q && more;
    rpos  = load ? seq_data_i[17 +: 16] : pos_q;
    rleft = load ? seq_data_i[16:0] : left_q;
    rd    = st_q == GRun && rleft != '0 && (load || left_q != '0);
    rn    = (rleft < 17'(InBytes)) ? ICW'(rleft) : ICW'(InBytes);
  end

  assign seq_addr_o = e_q + 15'(load);
  assign ring_pos_o = rpos;
  assign wr_o       = fly_q != '0;
  assign wr_pos_o   = fill_q[15:0];
  assign wr_data_o  = ring_data_i;
  assign wr_cnt_o   = fly_q;
  assign done_o     = st_q == GDone;
  assign nlit_o     = fill_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= GIdle;
      e_q    <= '0;
      sv_q   <= 1'b0;
      pos_q  <= '0;
      left_q <= '0;
      fill_q <= '0;
      fly_q  <= '0;
    end else if (start_i) begin
      st_q   <= GRun;
      e_q    <= '0;
      sv_q   <= 1'b0;                 // entry 0 is read this cycle
      left_q <= '0;
      fill_q <= '0;
      fly_q  <= '0;
    end else begin
      sv_q   <= 1'b1;
      fly_q  <= rd ? rn : '0;
      fill_q <= fill_q + 17'(fly_q);
      if (load) e_q <= e_q + 15'd1;
      if (rd) begin
        pos_q  <= rpos + 16'(rn);
        left_q <= rleft - 17'(rn);
      end else if (load) begin
        left_q <= '0;                 // an empty run
      end
      unique case (st_q)
        GRun:   if (left_q == '0 && !load && sv_q && !more) st_q <= GDrain;
        GDrain: if (fly_q == '0) st_q <= GDone;
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT(start_idle_a, !start_i || st_q == GIdle || st_q == GDone)
  `NDP_ASSERT(read_fits_a, !rd || rn != '0)
  `NDP_ASSERT(fill_bound_a, fill_q <= 17'd65536)
endmodule
