// ndp_dev_wr: the write side of ndp_device's host port (docs/spec.md 7.1, 7.5). Store-window bursts
// that lie inside DRAM go to DRAM unchanged (the stored image is written this way); control-window
// beats write registers and descriptors (ndp_dev_csr); every other burst is consumed and answered
// DECERR (SLVERR for FIXED/WRAP bursts or narrow sizes). One burst at a time.
//
/// Registers: the AW FIFO, the current burst (id, line, beats left, response), and the B
/// response register. W beats pass to DRAM combinationally (the DRAM port is the device's own).
`include "ndp_assert.svh"

module ndp_dev_wr #(
  parameter int unsigned IdW    = 8,
  parameter int unsigned DramAw = 30
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  // host AW / W / B
  input  logic           aw_valid_i,
  output logic           aw_ready_o,
  input  logic [IdW-1:0] aw_id_i,
  input  logic [47:0]    aw_addr_i,
  input  logic [7:0]     aw_len_i,
  input  logic [2:0]     aw_size_i,
  input  logic [1:0]     aw_burst_i,
  input  logic           w_valid_i,
  output logic           w_ready_o,
  input  logic [511:0]   w_data_i,
  input  logic [63:0]    w_strb_i,
  input  logic           w_last_i,
  output logic           b_valid_o,
  input  logic           b_ready_i,
  output logic [IdW-1:0] b_id_o,
  output logic [1:0]     b_resp_o,
  // control-window line writes
  output logic           csr_wr_valid_o,
  output logic [33:0]    csr_wr_line_o,
  output logic [511:0]   csr_wr_data_o,
  output logic [63:0]    csr_wr_strb_o,
  input  logic           csr_wr_decerr_i,
  // DRAM AW / W / B
  output logic           dw_aw_valid_o,
  input  logic           dw_aw_ready_i,
  output logic [33:0]    dw_aw_line_o,
  output logic [7:0]     dw_aw_len_o,
  output logic           dw_w_valid_o,
  input  logic           dw_w_ready_i,
  output logic [511:0]   dw_w_data_o,
  output logic [63:0]    dw_w_strb_o,
  output logic           dw_w_last_o,
  input  logic           dw_b_valid_i,
  output logic           dw_b_ready_o,
  input  logic [1:0]     dw_b_resp_i,
  // counters, status
  output ndp_dev_pkg::err_t err_o,          // a protocol error, logged once per burst
  output logic           err_valid_o,
  output logic           cnt_wr_beat_o,
  output logic           cnt_wr_decerr_o,
  output logic           cnt_wr_slverr_o
);
  localparam int unsigned AW = IdW + 48 + 8 + 3 + 2;
  logic           af_valid, af_ready;
  logic [AW-1:0]  af_out;
  logic [IdW-1:0] a_id;
  logic [47:0]    a_addr;
  logic [7:0]     a_len;
  logic [2:0]     a_size;
  logic [1:0]     a_burst;
  logic [2:0]     unused_aw_cnt;
  fifo_sync #(.Width(AW), .Depth(4)) u_aw (
    .clk_i, .rst_ni,
    .in_valid_i (aw_valid_i),
    .in_ready_o (aw_ready_o),
    .in_data_i  ({aw_id_i, aw_addr_i, aw_len_i, aw_size_i, aw_burst_i}),
    .out_valid_o(af_valid),
    .out_ready_i(af_ready),
    .out_data_o (af_out),
    .count_o    (unused_aw_cnt)
  );
  assign {a_id, a_addr, a_len, a_size, a_burst} = af_out;

  typedef enum logic [2:0] {WrIdle, WrStoreAw, WrStoreW, WrStoreB, WrCtrl, WrDrop, WrResp} wr_e;
  wr_e            st_q;
  logic [IdW-1:0] id_q;
  logic [33:0]    line_q;
  logic [1:0]     resp_q;
  logic [8:0]     left_q, in_q;   // beats left in the burst; beats of it inside DRAM (store window)
  logic           proto_q;

  localparam logic [33:0] DramLines = 34'(64'(1) << (DramAw - 6));
  logic       a_proto;
  logic [8:0] a_in;
  // a protocol error (spec 7.6) writes nothing
  assign a_proto = ndp_dev_pkg::axi_burst_ok(a_addr[11:6], a_len, a_size, a_burst);
  always_comb begin
    if (a_addr[39:6] >= DramLines) a_in = '0;
    else if (34'(a_len) + 34'd1 > DramLines - a_addr[39:6]) a_in = 9'(DramLines - a_addr[39:6]);
    else a_in = 9'(a_len) + 9'd1;
  end
  assign af_ready = st_q == WrIdle;

  // store window: the beats inside DRAM go to DRAM as one burst, the others are dropped (DECERR)
  logic w_fire, w_to_dram;
  assign w_fire    = w_valid_i && w_ready_o;
  assign w_to_dram = st_q == WrStoreW && in_q != '0;
  assign dw_aw_valid_o = st_q == WrStoreAw;
  assign dw_aw_line_o  = line_q;
  assign dw_aw_len_o   = 8'(in_q - 9'd1);
  assign dw_w_valid_o  = w_to_dram && w_valid_i;
  assign dw_w_data_o   = w_data_i;
  assign dw_w_strb_o   = w_strb_i;
  assign dw_w_last_o   = in_q == 9'd1;
  assign dw_b_ready_o  = st_q == WrStoreB;

  assign csr_wr_valid_o = st_q == WrCtrl && w_valid_i && proto_q;
  assign csr_wr_line_o  = line_q;
  assign csr_wr_data_o  = w_data_i;
  assign csr_wr_strb_o  = w_strb_i;

  always_comb begin
    unique case (st_q)
      WrStoreW:       w_ready_o = w_to_dram ? dw_w_ready_i : 1'b1;
      WrCtrl, WrDrop: w_ready_o = 1'b1;
      default:        w_ready_o = 1'b0;
    endcase
  end
  assign cnt_wr_beat_o = w_fire;
  // a beat answered DECERR (decodes to nothing) or SLVERR (protocol)
  assign cnt_wr_slverr_o = w_fire && !proto_q;
  assign cnt_wr_decerr_o = w_fire && proto_q && ((st_q == WrStoreW && !w_to_dram) || st_q == WrDrop
                                                 || (st_q == WrCtrl && csr_wr_decerr_i));
  always_comb begin
    err_valid_o  = st_q == WrIdle && af_valid && !a_proto;
    err_o        = '0;
    err_o.code   = ndp_dev_pkg::ErrProtocol;
    err_o.tensor = 32'hFFFF_FFFF;
    err_o.addr   = 64'(a_addr);
  end
  assign b_valid_o = st_q == WrResp;
  assign b_id_o    = id_q;
  assign b_resp_o  = resp_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q    <= WrIdle;
      resp_q  <= ndp_dev_pkg::RespOkay;
      left_q  <= '0;
      in_q    <= '0;
      proto_q <= 1'b1;
    end else begin
      if (w_fire) left_q <= left_q - 9'd1;
      if (w_fire && w_to_dram) in_q <= in_q - 9'd1;
      unique case (st_q)
        WrIdle: if (af_valid) begin
          left_q  <= 9'(a_len) + 9'd1;
          proto_q <= a_proto;
          in_q    <= a_in;
          resp_q  <= a_proto ? ndp_dev_pkg::RespOkay : ndp_dev_pkg::RespSlvErr;
          if (!a_proto) st_q <= WrDrop;
          else if (a_addr[47:40] == ndp_dev_pkg::WinStore) begin
            if (a_in == '0) begin
              st_q   <= WrDrop;
              resp_q <= ndp_dev_pkg::RespDecErr;
            end else begin
              st_q <= WrStoreAw;
              if (a_in != 9'(a_len) + 9'd1) resp_q <= ndp_dev_pkg::RespDecErr;
            end
          end else if (a_addr[47:40] == ndp_dev_pkg::WinCtrl) st_q <= WrCtrl;
          else begin
            st_q   <= WrDrop;
            resp_q <= ndp_dev_pkg::RespDecErr;
          end
        end
        WrStoreAw: if (dw_aw_ready_i) st_q <= WrStoreW;
        WrStoreW: if (w_fire && w_last_i) st_q <= WrStoreB;
        WrStoreB: if (dw_b_valid_i) begin
          if (resp_q == ndp_dev_pkg::RespOkay) resp_q <= dw_b_resp_i;
          st_q <= WrResp;
        end
        WrCtrl: if (w_valid_i) begin
          if (csr_wr_decerr_i) resp_q <= ndp_dev_pkg::RespDecErr;
          if (w_last_i) st_q <= WrResp;
        end
        WrDrop: if (w_valid_i && w_last_i) st_q <= WrResp;
        WrResp: if (b_ready_i) st_q <= WrIdle;
        default: st_q <= WrIdle;
      endcase
    end
  end
  always_ff @(posedge clk_i) begin
    if (st_q == WrIdle && af_valid) begin
      id_q   <= a_id;
      line_q <= a_addr[39:6];
    end else if (st_q == WrCtrl && w_valid_i) begin
      line_q <= line_q + 34'd1;
    end
  end

  `NDP_ASSERT_STREAM(b_stream_a, b_valid_o, b_ready_i, {b_id_o, b_resp_o})
  `NDP_ASSERT(w_count_a, !(w_fire && w_last_i) || left_q == 9'd1)
endmodule
