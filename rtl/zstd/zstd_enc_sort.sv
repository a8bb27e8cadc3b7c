// zstd_enc_sort: sorts the present symbols of a histogram by count, ascending, ties by symbol (the
// leaf order of docs/spec.md 4.3 step 1), for the package-merge code builder.
//
/// Input: the present symbols in symbol order, at most one per cycle (the histogram read-out), then
/// in_end_i. Load pairs consecutive items (one sorted pair per RAM word), then bottom-up merge
/// passes of runs 2, 4, ... between two RAMs (ram_1r1w, two items per word) until one run holds all
/// k items: k x (ceil(log2 k) - 1) + 2 x (run pairs) cycles. The merge is stable (the left run wins
/// ties), so equal counts stay in symbol order. Registers: the two run heads (one of them arriving
/// from the RAM each cycle: the successor of the item just taken is read in the same cycle), the
/// run bounds and the pass state. After done_o the result is read through rd_addr_i (item index,
/// data the next cycle).
`include "ndp_assert.svh"

module zstd_enc_sort #(
  parameter int unsigned CntW = 17,
  localparam int unsigned IW  = CntW + 8        // item: {count, symbol}
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,              // forget the previous list (before the first item)
  input  logic            in_valid_i,           // a present symbol (count > 0)
  input  logic [7:0]      in_sym_i,
  input  logic [CntW-1:0] in_cnt_i,
  input  logic            in_end_i,             // no more items after this cycle's
  output logic            done_o,               // sorted; the read port is free
  output logic [8:0]      k_o,                  // items
  input  logic [7:0]      rd_addr_i,            // sorted index
  output logic [7:0]      rd_sym_o,             // the item, the cycle after rd_addr_i
  output logic [CntW-1:0] rd_cnt_o
);
  typedef enum logic [2:0] {SIdle, SLoad, SStartA, SStartB, SRun, SDone} st_e;
  st_e st_q;

  logic [8:0]  k_q, s_q, r_q, ca_q, cb_q, o_q;
  logic        src_q;                            // RAM holding the runs of this pass (0: A)
  logic        pend_q, a_arr_q, b_arr_q, lane_q;
  logic [IW-1:0] pend_item_q, ha_q, hb_q;

  // RAM ports
  logic          we, re;
  logic [6:0]    waddr, raddr;
  logic [1:0]    wlane;
  logic [2*IW-1:0] wdata, rdata_a, rdata_b;
  logic          w_to_b;                         // write RAM B (else A)
  logic [8:0]    ridx;                           // item read this cycle

  logic [IW-1:0] item_in, rd_item, ha, hb;
  logic [8:0]    la, lb, rem;
  logic          a_has, b_has, take_a, pair_end;

  assign item_in = {in_cnt_i, in_sym_i};
  // the runs of a pass, and after the last pass the result, are in RAM src_q
  assign rd_item = IW'((src_q ? rdata_b : rdata_a) >> (lane_q ? IW : 0));

  always_comb begin
    rem   = k_q - s_q;
    la    = (rem < r_q) ? rem : r_q;
    lb    = (rem > r_q) ? (((rem - r_q) < r_q) ? rem - r_q : r_q) : 9'd0;
    ha    = a_arr_q ? rd_item : ha_q;
    hb    = b_arr_q ? rd_item : hb_q;
    a_has = ca_q < la;
    b_has = cb_q < lb;
    take_a = a_has && (!b_has || ha[IW-1:8] <= hb[IW-1:8]);
    pair_end = (ca_q + cb_q + 9'd1 == la + lb);
  end

  // writes and reads
  always_comb begin
    we = 1'b0; waddr = '0; wlane = '0; wdata = '0; w_to_b = 1'b0;
    re = 1'b0; ridx = '0;
    unique case (st_q)
      SLoad: begin
        if (in_valid_i && pend_q) begin            // items k-1 (held) and k, k odd
          we    = 1'b1;
          waddr = 7'(k_q >> 1);
          wlane = 2'b11;
          wdata = (pend_item_q[IW-1:8] <= in_cnt_i) ? {item_in, pend_item_q} : {pend_item_q, item_in};
        end else if (in_valid_i && in_end_i) begin  // a last item without a partner
          we    = 1'b1;
          waddr = 7'(k_q >> 1);
          wlane = 2'b01;
          wdata = {item_in, item_in};
        end else if (in_end_i && pend_q) begin     // the held item has no partner
          we    = 1'b1;
          waddr = 7'(k_q >> 1);
          wlane = 2'b01;
          wdata = {pend_item_q, pend_item_q};
        end
      end
      SStartA: begin
        re = 1'b1; ridx = s_q;
      end
      SStartB: begin
        re = lb != '0; ridx = s_q + r_q;
      end
      SRun: begin
        we     = 1'b1;
        w_to_b = !src_q;
        waddr  = 7'(o_q >> 1);
        wlane  = o_q[0] ? 2'b10 : 2'b01;
        wdata  = take_a ? {ha, ha} : {hb, hb};
        if (take_a && ca_q + 9'd1 < la) begin
          re = 1'b1; ridx = s_q + ca_q + 9'd1;
        end else if (!take_a && cb_q + 9'd1 < lb) begin
          re = 1'b1; ridx = s_q + r_q + cb_q + 9'd1;
        end
      end
      SDone: begin
        re = 1'b1; ridx = {1'b0, rd_addr_i};
      end
      default: ;
    endcase
    raddr = 7'(ridx >> 1);
  end

  ram_1r1w #(.Width(2 * IW), .Depth(128), .Lanes(2)) u_ram_a (
    .clk_i, .rst_ni,
    .we_i(we && !w_to_b), .waddr_i(waddr), .wlane_i(wlane), .wdata_i(wdata),
    .re_i(re), .raddr_i(raddr), .rdata_o(rdata_a)
  );
  ram_1r1w #(.Width(2 * IW), .Depth(128), .Lanes(2)) u_ram_b (
    .clk_i, .rst_ni,
    .we_i(we && w_to_b), .waddr_i(waddr), .wlane_i(wlane), .wdata_i(wdata),
    .re_i(re), .raddr_i(raddr), .rdata_o(rdata_b)
  );

  assign done_o   = (st_q == SDone);
  assign k_o      = k_q;
  assign rd_sym_o = rd_item[7:0];
  assign rd_cnt_o = rd_item[IW-1:8];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q    <= SIdle;
      k_q     <= '0;
      s_q     <= '0;
      r_q     <= '0;
      ca_q    <= '0;
      cb_q    <= '0;
      o_q     <= '0;
      src_q   <= 1'b0;
      pend_q  <= 1'b0;
      a_arr_q <= 1'b0;
      b_arr_q <= 1'b0;
      lane_q  <= 1'b0;
    end else begin
      lane_q  <= ridx[0];
      a_arr_q <= 1'b0;
      b_arr_q <= 1'b0;
      if (start_i) begin
        st_q   <= SLoad;
        k_q    <= '0;
        pend_q <= 1'b0;
        src_q  <= 1'b0;
      end else begin
        unique case (st_q)
          SLoad: begin
            if (in_valid_i) begin
              k_q    <= k_q + 9'd1;
              pend_q <= !pend_q;
            end
            if (in_end_i) begin
              s_q <= '0;
              o_q <= '0;
              r_q <= 9'd2;
              st_q <= (k_q + 9'(in_valid_i) <= 9'd2) ? SDone : SStartA;
            end
          end
          SStartA: begin
            a_arr_q <= 1'b1;
            ca_q    <= '0;
            cb_q    <= '0;
            st_q    <= SStartB;
          end
          SStartB: begin
            b_arr_q <= lb != '0;
            st_q    <= SRun;
          end
          SRun: begin
            o_q <= o_q + 9'd1;
            if (take_a) begin
              ca_q    <= ca_q + 9'd1;
              a_arr_q <= ca_q + 9'd1 < la;
            end else begin
              cb_q    <= cb_q + 9'd1;
              b_arr_q <= cb_q + 9'd1 < lb;
            end
            if (pair_end) begin
              if (s_q + (r_q << 1) >= k_q) begin
                s_q   <= '0;
                o_q   <= '0;
                r_q   <= r_q << 1;
                src_q <= !src_q;
                st_q  <= ((r_q << 1) >= k_q) ? SDone : SStartA;
              end else begin
                s_q  <= s_q + (r_q << 1);
                st_q <= SStartA;
              end
            end
          end
          default: ;
        endcase
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (st_q == SLoad && in_valid_i && !pend_q) pend_item_q <= item_in;
    ha_q <= ha;
    hb_q <= hb;
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, CntW >= 1)
  `NDP_ASSERT(input_in_load_a, !(in_valid_i || in_end_i) || st_q == SLoad)
  `NDP_ASSERT(k_bound_a, k_q <= 9'd256)
  `NDP_ASSERT(run_nonempty_a, st_q != SRun || a_has || b_has)
endmodule
