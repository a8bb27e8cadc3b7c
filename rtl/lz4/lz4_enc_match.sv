// lz4_enc_match: hash table look-up and match compare for one window of P positions per cycle.
//
/// Registers: the hash table (HashBanks banks of ram_1r1w, one read and one write per bank and
/// cycle; an entry holds the position, the D bytes from it and the byte before it), one valid bit
/// per entry in flops (cleared when a block's first window is looked up), the stage-2 register (bank grants,
/// in-window forwarding) and the stage-3 register (match length, offset, back-extension flag per
/// position). Bank conflicts: the lowest position asking for a bank wins it; later positions with
/// the same hash share the grant, others get no candidate and are not inserted. A position whose
/// hash matches an earlier granted position of the same window takes that position as candidate.
`include "ndp_assert.svh"

module lz4_enc_match #(
  parameter int unsigned P         = 8,
  parameter int unsigned D         = 8,
  parameter int unsigned HashBits  = 13,
  parameter int unsigned HashBanks = 32,
  localparam int unsigned X   = P + D,
  localparam int unsigned BW  = $clog2(HashBanks),
  localparam int unsigned RWd = HashBits - BW,
  localparam int unsigned Rows = 1 << RWd,
  localparam int unsigned EW  = 16 + 8 * D + 8,  // entry: position, D bytes, previous byte
  localparam int unsigned PW  = $clog2(P),
  localparam int unsigned LCW = $clog2(D + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  adv_i,
  // stage-1 window
  input  logic                  w_v_i,
  input  logic [16:0]           w_pos_i,
  input  logic [15:0]           w_base_i,
  input  logic [16:0]           w_n_i,        // block size
  input  logic                  w_first_i,    // first window of a block: the table starts empty
  input  logic [X*8-1:0]        w_bytes_i,
  input  logic [7:0]            w_prev_i,
  input  logic [P*HashBits-1:0] w_hash_i,
  input  logic [P-1:0]          w_part_i,
  input  logic                  w_last_i,
  // stage-3 output
  output logic                  m_v_o,
  output logic [16:0]           m_pos_o,
  output logic [15:0]           m_base_o,
  output logic [16:0]           m_n_o,
  output logic [P*8-1:0]        m_bytes_o,
  output logic [P*LCW-1:0]      m_len_o,      // match length seen (0..D), capped at n-5-i
  output logic [P*16-1:0]       m_off_o,
  output logic [P-1:0]          m_bok_o,      // byte before the position equals byte before the candidate
  output logic                  m_last_o
);
  // ---------------------------------------------------------------------------------------------
  // Stage 2: bank grants, forwarding, table read and write
  logic [BW-1:0]   bank [P];
  logic [RWd-1:0]  row  [P];
  logic            served [P];
  logic            fwd    [P];
  logic [PW-1:0]   fwdix  [P];
  logic            last_of [P];   // latest served position with its hash in the window

  always_comb begin
    for (int k = 0; k < P; k++) begin
      logic [HashBits-1:0] hk;
      hk      = w_hash_i[k*HashBits +: HashBits];
      bank[k] = hk[BW-1:0];
      row[k]  = hk[HashBits-1:BW];
    end
    for (int k = 0; k < P; k++) begin
      logic found;
      logic [HashBits-1:0] hf;
      found = 1'b0;
      hf    = w_hash_i[k*HashBits +: HashBits];
      for (int m = 0; m < k; m++) begin
        if (!found && w_part_i[m] && bank[m] == bank[k]) begin
          found = 1'b1;
          hf    = w_hash_i[m*HashBits +: HashBits];
        end
      end
      served[k] = w_v_i && w_part_i[k] && (hf == w_hash_i[k*HashBits +: HashBits]);
    end
    for (int k = 0; k < P; k++) begin
      fwd[k]   = 1'b0;
      fwdix[k] = '0;
      for (int m = 0; m < k; m++) begin
        if (served[m] && served[k] &&
            w_hash_i[m*HashBits +: HashBits] == w_hash_i[k*HashBits +: HashBits]) begin
          fwd[k]   = 1'b1;
          fwdix[k] = PW'(m);
        end
      end
      last_of[k] = served[k];
      for (int m = k + 1; m < P; m++) begin
        if (served[m] && w_hash_i[m*HashBits +: HashBits] == w_hash_i[k*HashBits +: HashBits])
          last_of[k] = 1'b0;
      end
    end
  end

  // per bank: read address (first served position using it) and write (latest served position)
  logic            t_re  [HashBanks];
  logic [RWd-1:0]  t_ra  [HashBanks];
  logic            t_we  [HashBanks];
  logic [RWd-1:0]  t_wa  [HashBanks];
  logic [EW-1:0]   t_wd  [HashBanks];
  logic [EW-1:0]   t_rd  [HashBanks];
  always_comb begin
    for (int b = 0; b < HashBanks; b++) begin
      /* verilator lint_off UNUSEDSIGNAL */
      logic [16:0] pos;  // < 65536: a position that takes part is at most n-12
      /* verilator lint_on UNUSEDSIGNAL */
      pos     = '0;
      t_re[b] = adv_i;
      t_ra[b] = '0;
      t_we[b] = 1'b0;
      t_wa[b] = '0;
      t_wd[b] = '0;
      for (int k = P - 1; k >= 0; k--) begin
        if (served[k] && 32'(bank[k]) == b) t_ra[b] = row[k];
      end
      for (int k = 0; k < P; k++) begin
        if (served[k] && last_of[k] && 32'(bank[k]) == b) begin
          pos     = w_pos_i + 17'(k);
          t_we[b] = adv_i;
          t_wa[b] = row[k];
          t_wd[b] = {pos[15:0] /* < 65536 */, w_bytes_i[k*8 +: 8*D], (k == 0) ? w_prev_i : w_bytes_i[(k-1)*8 +: 8]};
        end
      end
    end
  end

  for (genvar b = 0; b < HashBanks; b++) begin : gen_bank
    // the macro's read port on a plain net: Yosys 0.23 drops a black-box output bound to an
    // unpacked-array element (the RAM then vanished from synthesis)
    logic [EW-1:0] rd_t_rd;
    ram_1r1w #(.Width(EW), .Depth(Rows)) u_ram (
      .clk_i,
      .rst_ni,
      .we_i   (t_we[b]),
      .waddr_i(t_wa[b]),
      .wlane_i(1'b1),
      .wdata_i(t_wd[b]),
      .re_i   (t_re[b]),
      .raddr_i(t_ra[b]),
      .rdata_o(rd_t_rd)
    );
    assign t_rd[b] = rd_t_rd;
  end

  // valid bits (flops, per bank and row)
  logic [Rows-1:0] vb_q [HashBanks];
  logic            vb_rd_q [HashBanks];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int b = 0; b < HashBanks; b++) begin
        vb_q[b]    <= '0;
        vb_rd_q[b] <= 1'b0;
      end
    end else if (adv_i) begin
      for (int b = 0; b < HashBanks; b++) begin
        if (w_v_i && w_first_i) begin
          // a new block: every entry is stale; this window reads nothing and its writes start over
          vb_rd_q[b] <= 1'b0;
          vb_q[b]    <= '0;
        end else begin
          vb_rd_q[b] <= vb_q[b][t_ra[b]];
        end
        if (t_we[b]) vb_q[b][t_wa[b]] <= 1'b1;
      end
    end
  end

  // stage-2 register
  logic                 v2_q, last2_q;
  logic [16:0]          pos2_q;
  logic [15:0]          base2_q;
  logic [16:0]          n2_q;
  logic [X*8-1:0]       bytes2_q;
  logic [7:0]           prev2_q;
  logic                 served2_q [P];
  logic                 fwd2_q    [P];
  logic [PW-1:0]        fwdix2_q  [P];
  logic [BW-1:0]        bank2_q   [P];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v2_q <= 1'b0;
    else if (adv_i) v2_q <= w_v_i;
  end
  always_ff @(posedge clk_i) begin
    if (adv_i) begin
      last2_q  <= w_last_i;
      pos2_q   <= w_pos_i;
      base2_q  <= w_base_i;
      n2_q     <= w_n_i;
      bytes2_q <= w_bytes_i;
      prev2_q  <= w_prev_i;
      for (int k = 0; k < P; k++) begin
        served2_q[k] <= served[k];
        fwd2_q[k]    <= fwd[k];
        fwdix2_q[k]  <= fwdix[k];
        bank2_q[k]   <= bank[k];
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Stage 3: candidate, compare, back byte
  logic [LCW-1:0] len [P];
  logic [15:0]    off [P];
  logic           bok [P];
  always_comb begin
    for (int k = 0; k < P; k++) begin
      logic [EW-1:0]  e;
      logic           cv;
      logic [16:0]    c, i, cap;
      logic [8*D-1:0] cd;
      logic [7:0]     cb, ib;
      logic           run;
      i  = pos2_q + 17'(k);
      e  = t_rd[bank2_q[k]];
      if (fwd2_q[k]) begin
        cv = 1'b1;
        c  = pos2_q + 17'(fwdix2_q[k]);
        cd = bytes2_q[fwdix2_q[k]*8 +: 8*D];
        cb = (fwdix2_q[k] == '0) ? prev2_q : bytes2_q[(32'(fwdix2_q[k]) - 1)*8 +: 8];
      end else begin
        cv = vb_rd_q[bank2_q[k]];
        c  = {1'b0, e[EW-1 -: 16]};
        cd = e[8 +: 8*D];
        cb = e[7:0];
      end
      ib  = (k == 0) ? prev2_q : bytes2_q[(k-1)*8 +: 8];
      cap = n2_q - 17'd5 - i;               // >= 7 for a position that takes part
      len[k] = '0;
      run    = served2_q[k] && cv;
      for (int l = 0; l < D; l++) begin
        if (run && bytes2_q[(k+l)*8 +: 8] == cd[l*8 +: 8] && 17'(l) < cap) len[k] = LCW'(l + 1);
        else run = 1'b0;
      end
      off[k] = 16'(i - c);
      bok[k] = served2_q[k] && cv && (c != '0) && (ib == cb);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) m_v_o <= 1'b0;
    else if (adv_i) m_v_o <= v2_q;
  end
  always_ff @(posedge clk_i) begin
    if (adv_i) begin
      m_pos_o   <= pos2_q;
      m_base_o  <= base2_q;
      m_n_o     <= n2_q;
      m_bytes_o <= bytes2_q[P*8-1:0];
      m_last_o  <= last2_q;
      for (int k = 0; k < P; k++) begin
        m_len_o[k*LCW +: LCW] <= len[k];
        m_off_o[k*16 +: 16]   <= off[k];
        m_bok_o[k]            <= bok[k];
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, (HashBanks & (HashBanks - 1)) == 0 && HashBanks >= P &&
                   HashBits > BW && D >= P && D <= 16)
  for (genvar k = 0; k < P; k++) begin : gen_chk
    `NDP_ASSERT(off_nonzero_a, !m_v_o || m_len_o[k*LCW +: LCW] == '0 || m_off_o[k*16 +: 16] != '0)
    `NDP_ASSERT(len_bound_a, !m_v_o || 32'(m_len_o[k*LCW +: LCW]) <= D)
  end
endmodule
