// lz4_enc_select: the encoder's match selector. Walks the positions of each window in order and
// keeps the matches a greedy parse takes, with a lazy skip (a position is passed over when the
// next one in the window has a longer match), a one-byte backward extension into pending
// literals, and extension of matches that reach D bytes by comparing P bytes per cycle against
// the input RAM.
///
/// Registers: the parse state (literal anchor a = next usable position), the extension state
/// (match start, offset, next position to compare) and the next window position used to read the
/// input RAM one cycle ahead. Entering an extension costs one stall cycle (the first RAM read
/// needs the new offset). Output: up to P/4+2 sequence records per cycle (lz4_pkg-style fields in
/// seq_t layout below) into the sequence queue.
`include "ndp_assert.svh"

module lz4_enc_select #(
  parameter int unsigned P       = 8,
  parameter int unsigned D       = 8,
  parameter bit          Lazy    = 1'b1,
  parameter bit          BackExt = 1'b1,
  localparam int unsigned LCW   = $clog2(D + 1),
  localparam int unsigned PushN = P / 4 + 2,
  localparam int unsigned SeqW  = 16 + 17 + 16 + 17 + 1,
  localparam int unsigned PNW   = $clog2(PushN + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [16:0]           n_i,
  // stage-3 window
  input  logic                  m_v_i,
  input  logic [16:0]           m_pos_i,
  input  logic [15:0]           m_base_i,    // ring address of the block's byte 0
  input  logic [P*8-1:0]        m_bytes_i,
  input  logic [P*LCW-1:0]      m_len_i,
  input  logic [P*16-1:0]       m_off_i,
  input  logic [P-1:0]          m_bok_i,
  input  logic                  m_last_i,
  output logic                  consume_o,   // the window is used this cycle
  // input RAM read port (P bytes from ring address ram_pos_o, data next cycle)
  output logic [15:0]           ram_pos_o,
  input  logic [P*8-1:0]        ram_data_i,
  // sequence records: {lit_start[15:0] (ring address), ll[16:0], off[15:0], ml[16:0], last}
  input  logic                  seq_room_i,  // the queue can take PushN records
  output logic [PNW-1:0]        seq_cnt_o,
  output logic [PushN*SeqW-1:0] seq_data_o
);
  logic [16:0] a_q, ext_e_q, ext_s_q, wn_q;  // a: literal anchor = next usable position
  logic [15:0] ext_off_q;
  logic        ext_q, wait_q;

  logic [16:0] a_d, ext_e_d, ext_s_d;
  logic        ext_left;    // an extension is still open after this window
  logic [15:0] ext_off_d;
  logic        ext_d, wait_d;
  logic [16:0] mlim;

  assign consume_o = m_v_i && !wait_q && seq_room_i;
  assign mlim      = n_i - 17'd5;
  assign ram_pos_o = m_base_i + 16'((consume_o ? m_pos_i + 17'(P) : wn_q) - 17'(ext_off_q));

  // a record; the literal start goes out as a ring address (a < 65536: the final literal run is
  // at least 5 bytes long unless the block is, so it starts below n-4)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [SeqW-1:0] rec(input logic [15:0] base, input logic [16:0] a,
                                          input logic [16:0] ll, input logic [15:0] off,
                                          input logic [16:0] ml, input logic last);
    rec = {base + a[15:0], ll, off, ml, last};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  always_comb begin
    logic           ext_now, endf, bk, skip;
    logic [16:0]    xend, x, i, s, ml;
    logic [LCW-1:0] lk, lk1;
    x = '0; i = '0; s = '0; ml = '0; lk = '0; lk1 = '0; bk = 1'b0; skip = 1'b0;
    a_d       = a_q;
    ext_d     = ext_q;
    ext_e_d   = ext_e_q;
    ext_s_d   = ext_s_q;
    ext_off_d = ext_off_q;
    wait_d    = 1'b0;
    seq_cnt_o  = '0;
    seq_data_o = '0;
    ext_now   = ext_q;
    endf      = 1'b0;
    xend      = '0;
    ext_left  = 1'b0;
    if (consume_o) begin
      // 1. a match being extended: find where it stops in this window
      if (ext_q) begin
        for (int k = 0; k < P; k++) begin
          x = m_pos_i + 17'(k);
          if (!endf && x >= ext_e_q &&
              (x >= mlim || m_bytes_i[k*8 +: 8] != ram_data_i[k*8 +: 8])) begin
            endf = 1'b1;
            xend = x;
          end
        end
        if (endf) begin
          seq_data_o[32'(seq_cnt_o)*SeqW +: SeqW] =
              rec(m_base_i, a_d, ext_s_q - a_d, ext_off_q, xend - ext_s_q, 1'b0);
          seq_cnt_o = seq_cnt_o + 1'b1;
          a_d       = xend;
          ext_now   = 1'b0;
          ext_d     = 1'b0;
        end
      end
      // 2. greedy scan of the window's positions
      for (int k = 0; k < P; k++) begin
        i    = m_pos_i + 17'(k);
        lk   = m_len_i[k*LCW +: LCW];
        lk1  = (k + 1 < P) ? m_len_i[((k+1)%P)*LCW +: LCW] : '0;
        skip = Lazy && (k + 1 < P) && (lk1 > lk);
        bk   = 1'b0;
        s    = i;
        ml   = 17'(lk);
        if (!ext_now && i >= a_d && 32'(lk) >= 4 && !skip) begin
          bk = BackExt && (i > a_d) && m_bok_i[k];
          s  = i - 17'(bk);
          ml = 17'(lk) + 17'(bk);
          if (32'(lk) == D && i + 17'(D) < mlim) begin
            ext_now   = 1'b1;
            ext_d     = 1'b1;
            wait_d    = 1'b1;
            ext_e_d   = i + 17'(D);
            ext_s_d   = s;
            ext_off_d = m_off_i[k*16 +: 16];
          end else begin
            seq_data_o[32'(seq_cnt_o)*SeqW +: SeqW] =
                rec(m_base_i, a_d, s - a_d, m_off_i[k*16 +: 16], ml, 1'b0);
            seq_cnt_o = seq_cnt_o + 1'b1;
            a_d       = s + ml;
          end
        end
      end
      ext_left = ext_now;
      // 3. the block's last window: final literals
      if (m_last_i) begin
        seq_data_o[32'(seq_cnt_o)*SeqW +: SeqW] = rec(m_base_i, a_d, n_i - a_d, '0, '0, 1'b1);
        seq_cnt_o = seq_cnt_o + 1'b1;
        a_d   = '0;
        ext_d = 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_q       <= '0;
      ext_q     <= 1'b0;
      wait_q    <= 1'b0;
      ext_e_q   <= '0;
      ext_s_q   <= '0;
      ext_off_q <= '0;
      wn_q      <= '0;
    end else begin
      a_q       <= a_d;
      ext_q     <= ext_d;
      wait_q    <= wait_d;
      ext_e_q   <= ext_e_d;
      ext_s_q   <= ext_s_d;
      ext_off_q <= ext_off_d;
      if (consume_o) wn_q <= m_last_i ? 17'd0 : m_pos_i + 17'(P);
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, D >= P && P >= 4 && (P & (P - 1)) == 0)
  `NDP_ASSERT(window_order_a, !m_v_i || m_pos_i == wn_q)
  `NDP_ASSERT(no_ext_at_end_a, !(consume_o && m_last_i) || !ext_left)
  `NDP_ASSERT(push_bound_a, 32'(seq_cnt_o) <= PushN)
  `NDP_ASSERT(anchor_a, a_q <= n_i || !m_v_i)
endmodule
