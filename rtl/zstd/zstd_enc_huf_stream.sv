// zstd_enc_huf_stream: one Huffman-coded stream of the ZSTD encoder (RFC 8878 "Huffman-coded
// Streams", docs/spec.md 4.3 step 4): the segment's bytes coded last to first, four per cycle, into
// a backward bitstream closed by a 1 bit and zero padding, written to the stream's region RAM in
// 32-byte words.
//
/// Fetch: 32-byte reads of the input ring from the segment's end backwards (request/grant with the
/// other streams; data the cycle after the grant), pushed reversed into a byte queue, so the queue
/// head is the next byte to code. Code: E0 pops up to 4 bytes and reads their {code, length} from
/// the stream's 4 code-table replicas; E1 concatenates the 4 codes (the first coded in the low
/// bits, <= 44 bits); E2 appends them to the bit accumulator and moves the whole bytes (<= 6) into
/// the output packer, which writes a region word whenever 32 bytes are queued. Registers: fetch and
/// code counters, the queue, E1/E2 registers, the accumulator, the packer.
`include "ndp_assert.svh"

module zstd_enc_huf_stream #(
  parameter int unsigned RegWords = 706       // region RAM words (32 bytes)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,
  input  logic [15:0]     beg_i,              // ring address of the segment's first byte
  input  logic [16:0]     len_i,              // segment bytes, >= 1
  // ring reads
  output logic            rq_valid_o,
  input  logic            rq_grant_i,
  output logic [15:0]     rq_pos_o,
  input  logic            rs_valid_i,         // data of the read granted the cycle before
  input  logic [255:0]    rs_data_i,          // 32 bytes from rq_pos_o
  // code table replicas: symbol -> {code[10:0], len[3:0]} the next cycle
  output logic [4*8-1:0]  tab_addr_o,
  input  logic [4*15-1:0] tab_data_i,
  // region RAM writes
  output logic            wr_o,
  output logic [$clog2(RegWords)-1:0] wr_addr_o,
  output logic [255:0]    wr_data_o,
  output logic            done_o,             // the stream is in the region RAM
  output logic [15:0]     size_o              // its bytes
);
  localparam int unsigned QD  = 96;
  localparam int unsigned RWW = $clog2(RegWords);

  typedef enum logic [1:0] {SIdle, SRun, SFlush, SDone} st_e;
  st_e st_q;

  logic [16:0] fetch_left_q, code_left_q;     // bytes not yet requested / not yet popped
  logic [5:0]  fly_q;                         // bytes of the read in flight
  logic [6:0]  qcnt;
  logic [31:0] qhead;
  logic [2:0]  pop;
  logic [5:0]  rq_cnt;
  logic [255:0] rev;

  // ---------------------------------------------------------------------------------------------
  // fetch
  assign rq_cnt     = (fetch_left_q < 17'd32) ? 6'(fetch_left_q) : 6'd32;
  assign rq_valid_o = (st_q == SRun) && fetch_left_q != '0 && fly_q == '0 &&
                      32'(qcnt) + 32 <= QD;
  assign rq_pos_o   = beg_i + 16'(fetch_left_q - 17'(rq_cnt));
  always_comb begin
    rev = '0;
    for (int i = 0; i < 32; i++)
      if (32'(i) < 32'(fly_q)) rev[i*8 +: 8] = rs_data_i[(32'(fly_q) - 1 - i)*8 +: 8];
  end

  lz4_byteq #(.Depth(QD), .PushW(32), .PopW(4)) u_q (
    .clk_i, .rst_ni,
    .flush_i    (start_i),
    .push_cnt_i (rs_valid_i ? fly_q : 6'd0),
    .push_data_i(rev),
    .pop_cnt_i  (pop),
    .head_o     (qhead),
    .count_o    (qcnt)
  );

  // ---------------------------------------------------------------------------------------------
  // E0: pop up to 4 bytes, look up their codes
  logic       e1_v_q, e2_v_q;
  logic [3:0] e1_m_q;
  always_comb begin
    pop = '0;
    if (st_q == SRun && code_left_q != '0) begin
      if (qcnt >= 7'd4 && code_left_q >= 17'd4) pop = 3'd4;
      else if (32'(qcnt) >= 32'(code_left_q) && code_left_q < 17'd4) pop = 3'(code_left_q);
    end
  end
  assign tab_addr_o = qhead;

  // E1: concatenate
  logic [43:0] e2_bits_q;
  logic [5:0]  e2_n_q;
  logic [43:0] cat;
  logic [5:0]  cat_n;
  always_comb begin
    cat   = '0;
    cat_n = '0;
    for (int k = 0; k < 4; k++) begin
      if (e1_m_q[k]) begin
        cat   = cat | (44'(tab_data_i[k*15 + 4 +: 11]) << cat_n);
        cat_n = cat_n + 6'(tab_data_i[k*15 +: 4]);
      end
    end
  end

  // E2: accumulate, move whole bytes to the packer
  logic [63:0] acc_q;
  logic [6:0]  nacc_q;
  logic [63:0] acc_n;
  logic [6:0]  nacc_n;
  logic [3:0]  ob;                             // bytes moved this cycle
  logic        endmark;
  assign endmark = (st_q == SFlush);
  always_comb begin
    acc_n  = acc_q;
    nacc_n = nacc_q;
    if (e2_v_q) begin
      acc_n  = acc_n | (64'(e2_bits_q) << nacc_n);
      nacc_n = nacc_n + 7'(e2_n_q);
    end
    if (endmark) begin
      acc_n  = acc_n | (64'd1 << nacc_n);
      nacc_n = nacc_n + 7'd1;
      ob     = 4'((nacc_n + 7'd7) >> 3);
    end else begin
      ob     = 4'(nacc_n >> 3);
    end
  end

  // packer
  logic [6:0]   pcnt;
  logic [255:0] phead;
  logic         wfull, wlast;
  logic [RWW-1:0] wa_q;
  logic [15:0]  size_q;
  assign wfull = pcnt >= 7'd32;
  assign wlast = (st_q == SDone) && !wfull && pcnt != '0;
  lz4_byteq #(.Depth(64), .PushW(8), .PopW(32)) u_pack (
    .clk_i, .rst_ni,
    .flush_i    (start_i),
    .push_cnt_i (ob),
    .push_data_i(acc_n),
    .pop_cnt_i  (wfull ? 6'd32 : (wlast ? 6'(pcnt) : 6'd0)),
    .head_o     (phead),
    .count_o    (pcnt)
  );
  assign wr_o      = wfull || wlast;
  assign wr_addr_o = wa_q;
  assign wr_data_o = phead;
  assign done_o    = (st_q == SDone) && pcnt == '0;
  assign size_o    = size_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q         <= SIdle;
      fetch_left_q <= '0;
      code_left_q  <= '0;
      fly_q        <= '0;
      e1_v_q       <= 1'b0;
      e2_v_q       <= 1'b0;
      e1_m_q       <= '0;
      acc_q        <= '0;
      nacc_q       <= '0;
      wa_q         <= '0;
      size_q       <= '0;
    end else if (start_i) begin
      st_q         <= SRun;
      fetch_left_q <= len_i;
      code_left_q  <= len_i;
      fly_q        <= '0;
      e1_v_q       <= 1'b0;
      e2_v_q       <= 1'b0;
      acc_q        <= '0;
      nacc_q       <= '0;
      wa_q         <= '0;
      size_q       <= '0;
    end else begin
      if (rq_valid_o && rq_grant_i) begin
        fly_q        <= rq_cnt;
        fetch_left_q <= fetch_left_q - 17'(rq_cnt);
      end else if (rs_valid_i) begin
        fly_q <= '0;
      end
      e1_v_q      <= pop != '0;
      e1_m_q      <= 4'((5'd1 << pop) - 5'd1);
      e2_v_q      <= e1_v_q;
      code_left_q <= code_left_q - 17'(pop);
      acc_q       <= acc_n >> {ob, 3'b000};
      nacc_q      <= endmark ? 7'd0 : nacc_n - {ob, 3'b000};
      size_q      <= size_q + 16'(ob);
      if (wr_o) wa_q <= wa_q + 1'b1;
      unique case (st_q)
        SRun:   if (code_left_q == '0 && pop == '0 && !e1_v_q && !e2_v_q) st_q <= SFlush;
        SFlush: st_q <= SDone;
        default: ;
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    e2_bits_q <= cat;
    e2_n_q    <= cat_n;
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT(start_len_a, !start_i || len_i != '0)
  `NDP_ASSERT(fly_resp_a, !rs_valid_i || fly_q != '0)
  `NDP_ASSERT(acc_bound_a, nacc_q < 7'd8)
  `NDP_ASSERT(pack_bound_a, pcnt <= 7'd40)
  `NDP_ASSERT(region_a, !wr_o || 32'(wa_q) < RegWords)
endmodule
