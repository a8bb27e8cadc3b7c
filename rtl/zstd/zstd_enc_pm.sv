// zstd_enc_pm: package-merge (docs/spec.md 4.3 step 1) for the ZSTD encoder's Huffman code: the
// optimal code lengths limited to 11 bits for k sorted leaves, exactly as sw/codec
// huffman_code_lengths() computes them.
//
/// Level 0 is the leaf list; level d = 1..10 merges the leaves with the packages (consecutive item
/// pairs) of level d-1, a leaf before a package of equal weight. Each level is written to one of two
/// level RAMs (ping-pong, two items per word, so a package is one read), one item per cycle, with a
/// bit per item saying "leaf" in the leaf-bit RAM. The selection then walks down from the top level:
/// of the first take(10) = 2k-2 items, nleaf(d) are leaves (a popcount of the leaf bits, 32 per
/// cycle) and the packages among them select the first take(d-1) = 2 x packages items of the level
/// below. Sorted leaf i gets the length #{d : i < nleaf(d)} (zstd_enc_code). Cycles: k (level 0) +
/// the 10 level lengths (each <= 2k-1) + 2 per level + the selection (<= 17 per level).
/// Registers: the two stream heads (leaf, package; the successor of the taken one arrives from its
/// RAM the next cycle), the level, item counters and the selection state.
`include "ndp_assert.svh"

module zstd_enc_pm #(
  parameter int unsigned CntW = 17,
  localparam int unsigned WW  = CntW + 4          // item weight: <= 11 x the block size
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,
  input  logic [8:0]      k_i,                    // leaves, 2..256 (held while busy)
  output logic            done_o,                 // nleaf_o valid (held until the next start)
  output logic [11*9-1:0] nleaf_o,                // nleaf(d) at [d*9 +: 9]
  // sorted leaf read port (zstd_enc_sort): count of leaf lf_addr_o, the cycle after
  output logic [7:0]      lf_addr_o,
  input  logic [CntW-1:0] lf_cnt_i
);
  typedef enum logic [2:0] {PIdle, PCopy, PStart, PRun, PSel, PSelW, PDone} st_e;
  st_e st_q;

  logic [3:0]  d_q;
  logic [8:0]  li_q, pi_q, o_q, plen_q, take_q, cnt_q;
  logic        cur_q;                 // level RAM written by this level (1: B)
  logic        l_arr_q, p_arr_q, cp_v_q;
  logic [WW-1:0] hl_q, hp_q;
  logic [4:0]  sw_q;                  // selection: next leaf-bit word to read
  logic        sw_v_q;                // a leaf-bit word arrives this cycle
  logic [4:0]  sw_idx_q;              // its index
  logic [11*9-1:0] nleaf_q;

  logic [8:0]   npk;
  logic [WW-1:0] hl, hp, pair_sum;
  logic         l_has, p_has, take_leaf, lvl_end;
  logic [2*WW-1:0] rd_a, rd_b, rd_prev;
  logic [31:0]  bits_rd;

  assign npk     = plen_q >> 1;
  assign rd_prev = cur_q ? rd_a : rd_b;         // the previous level is in the other RAM
  assign pair_sum = rd_prev[WW-1:0] + rd_prev[2*WW-1:WW];
  assign hl      = l_arr_q ? WW'(lf_cnt_i) : hl_q;
  assign hp      = p_arr_q ? pair_sum : hp_q;
  assign l_has   = li_q < k_i;
  assign p_has   = pi_q < npk;
  assign take_leaf = l_has && (!p_has || hl <= hp);
  assign lvl_end = (li_q + 9'(take_leaf) == k_i) && (pi_q + 9'(!take_leaf) == npk);

  // ---------------------------------------------------------------------------------------------
  // RAM ports
  logic         lv_we, lv_re, lv_we_b;
  logic [7:0]   lv_waddr, lv_raddr;
  logic [1:0]   lv_wlane;
  logic [2*WW-1:0] lv_wdata;
  logic         bt_we, bt_re;
  logic [7:0]   bt_waddr, bt_raddr;
  logic [31:0]  bt_wlane;

  always_comb begin
    lf_addr_o = '0;
    lv_we = 1'b0; lv_we_b = 1'b0; lv_waddr = '0; lv_wlane = '0; lv_wdata = '0;
    lv_re = 1'b0; lv_raddr = '0;
    bt_we = 1'b0; bt_waddr = '0; bt_wlane = '0;
    bt_re = 1'b0; bt_raddr = {d_q, sw_q[3:0]};
    unique case (st_q)
      PCopy: begin                    // level 0 = the leaves, into RAM A
        lf_addr_o = li_q[7:0];
        lv_we     = cp_v_q;
        lv_waddr  = 8'(o_q >> 1);
        lv_wlane  = o_q[0] ? 2'b10 : 2'b01;
        lv_wdata  = {WW'(lf_cnt_i), WW'(lf_cnt_i)};
      end
      PStart: begin
        lf_addr_o = '0;
        lv_re     = 1'b1;
        lv_raddr  = '0;
      end
      PRun: begin
        lv_we    = 1'b1;
        lv_we_b  = cur_q;
        lv_waddr = 8'(o_q >> 1);
        lv_wlane = o_q[0] ? 2'b10 : 2'b01;
        lv_wdata = take_leaf ? {hl, hl} : {hp, hp};
        bt_we    = 1'b1;
        bt_waddr = {d_q, o_q[8:5]};
        bt_wlane = 32'd1 << o_q[4:0];
        lf_addr_o = 8'(li_q + 9'd1);
        lv_raddr = 8'(pi_q + 9'd1);
        lv_re    = !take_leaf && (pi_q + 9'd1 < npk);
      end
      PSel: bt_re = (9'({sw_q, 5'd0}) < take_q) && !sw_q[4];
      default: ;
    endcase
  end

  ram_1r1w #(.Width(2 * WW), .Depth(256), .Lanes(2)) u_lv_a (
    .clk_i, .rst_ni,
    .we_i(lv_we && !lv_we_b), .waddr_i(lv_waddr), .wlane_i(lv_wlane), .wdata_i(lv_wdata),
    .re_i(lv_re), .raddr_i(lv_raddr), .rdata_o(rd_a)
  );
  ram_1r1w #(.Width(2 * WW), .Depth(256), .Lanes(2)) u_lv_b (
    .clk_i, .rst_ni,
    .we_i(lv_we && lv_we_b), .waddr_i(lv_waddr), .wlane_i(lv_wlane), .wdata_i(lv_wdata),
    .re_i(lv_re), .raddr_i(lv_raddr), .rdata_o(rd_b)
  );
  ram_1r1w #(.Width(32), .Depth(256), .Lanes(32)) u_bits (
    .clk_i, .rst_ni,
    .we_i(bt_we), .waddr_i(bt_waddr), .wlane_i(bt_wlane), .wdata_i({32{take_leaf}}),
    .re_i(bt_re), .raddr_i(bt_raddr), .rdata_o(bits_rd)
  );

  // leaves among the first take_q items: popcount of the arriving word, masked at take_q
  logic [5:0] pc;
  always_comb begin
    logic [31:0] m;
    logic [9:0]  lim;
    lim = 10'(take_q) - {sw_idx_q, 5'd0};
    m   = (lim >= 10'd32) ? 32'hFFFF_FFFF : ((32'd1 << lim[4:0]) - 32'd1);
    pc  = '0;
    for (int b = 0; b < 32; b++) pc = pc + {5'd0, bits_rd[b] & m[b]};
  end

  assign done_o  = (st_q == PDone);
  assign nleaf_o = nleaf_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q    <= PIdle;
      d_q     <= '0;
      li_q    <= '0;
      pi_q    <= '0;
      o_q     <= '0;
      plen_q  <= '0;
      take_q  <= '0;
      cnt_q   <= '0;
      cur_q   <= 1'b0;
      l_arr_q <= 1'b0;
      p_arr_q <= 1'b0;
      cp_v_q  <= 1'b0;
      sw_q    <= '0;
      sw_v_q  <= 1'b0;
      sw_idx_q <= '0;
      nleaf_q <= '0;
    end else begin
      l_arr_q <= 1'b0;
      p_arr_q <= 1'b0;
      sw_v_q  <= 1'b0;
      if (start_i) begin
        st_q   <= PCopy;
        li_q   <= '0;
        o_q    <= '0;
        cp_v_q <= 1'b0;
      end else begin
        unique case (st_q)
          PCopy: begin
            // read leaf li, write it the next cycle at o
            cp_v_q <= li_q < k_i;
            if (li_q < k_i) li_q <= li_q + 9'd1;
            if (cp_v_q) o_q <= o_q + 9'd1;
            if (!(li_q < k_i) && cp_v_q && o_q + 9'd1 == k_i) begin
              plen_q <= k_i;
              d_q    <= 4'd1;
              cur_q  <= 1'b1;               // level 1 goes to RAM B
              st_q   <= PStart;
            end
          end
          PStart: begin
            li_q    <= '0;
            pi_q    <= '0;
            o_q     <= '0;
            l_arr_q <= 1'b1;
            p_arr_q <= npk != '0;
            st_q    <= PRun;
          end
          PRun: begin
            o_q <= o_q + 9'd1;
            if (take_leaf) begin
              li_q    <= li_q + 9'd1;
              l_arr_q <= li_q + 9'd1 < k_i;
            end else begin
              pi_q    <= pi_q + 9'd1;
              p_arr_q <= pi_q + 9'd1 < npk;
            end
            if (lvl_end) begin
              plen_q <= o_q + 9'd1;
              cur_q  <= !cur_q;
              if (d_q == 4'd10) begin
                take_q <= 9'((10'(k_i) << 1) - 10'd2);
                sw_q   <= '0;
                cnt_q  <= '0;
                st_q   <= PSel;
              end else begin
                d_q  <= d_q + 4'd1;
                st_q <= PStart;
              end
            end
          end
          PSel: begin
            // issue leaf-bit reads of level d_q, count the arriving ones
            if (bt_re) begin
              sw_q     <= sw_q + 5'd1;
              sw_v_q   <= 1'b1;
              sw_idx_q <= sw_q;
            end else begin
              st_q <= PSelW;
            end
            if (sw_v_q) cnt_q <= cnt_q + 9'(pc);
          end
          PSelW: begin
            // every word counted: nleaf(d), take(d-1) = 2 x packages
            if (sw_v_q) begin
              cnt_q <= cnt_q + 9'(pc);
            end else begin
              nleaf_q[32'(d_q)*9 +: 9] <= cnt_q;
              take_q <= (take_q - cnt_q) << 1;
              sw_q   <= '0;
              cnt_q  <= '0;
              if (d_q == 4'd1) begin
                nleaf_q[8:0] <= (take_q - cnt_q) << 1;
                st_q <= PDone;
              end else begin
                d_q  <= d_q - 4'd1;
                st_q <= PSel;
              end
            end
          end
          default: ;
        endcase
      end
    end
  end

  always_ff @(posedge clk_i) begin
    hl_q <= hl;
    hp_q <= hp;
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, CntW >= 2 && CntW <= 24)
  `NDP_ASSERT(k_legal_a, st_q == PIdle || st_q == PDone || (k_i >= 9'd2 && k_i <= 9'd256))
  `NDP_ASSERT(run_has_item_a, st_q != PRun || l_has || p_has)
  `NDP_ASSERT(level_len_a, st_q != PRun || o_q < 9'd511)
  `NDP_ASSERT(take_fits_a, st_q != PSel || take_q <= plen_q)
endmodule
