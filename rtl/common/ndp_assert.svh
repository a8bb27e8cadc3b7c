// Assertion macros shared by every RTL module (docs/rtl.md, "Assertions").
//
// `NDP_ASSERT(name, cond)            cond holds at every rising clk_i edge while rst_ni is high
// `NDP_ASSERT_STREAM(name, v, r, d)  stream rule: once v is high without r, v stays high and d stays
//                                    stable until the handshake (checked in simulation)
// `NDP_ASSERT_INIT(name, cond)       parameter legality, checked once at elaboration/time 0
//
// Simulation (verilator) builds get concurrent SVA (a failing check stops the simulation, or sets gotError() when
// fatalOnError(false)); `FORMAL` builds (yosys -formal) get immediate asserts in a clocked always,
// which yosys-smtbmc proves; synthesis builds get nothing. The macros expect `clk_i` and `rst_ni`.
`ifndef NDP_ASSERT_SVH
`define NDP_ASSERT_SVH

`ifdef VERILATOR
`define NDP_ASSERT(__name, __cond) \
  __name: assert property (@(posedge clk_i) disable iff (!rst_ni) (__cond));
`define NDP_ASSERT_STREAM(__name, __v, __r, __d) \
  __name: assert property (@(posedge clk_i) disable iff (!rst_ni) \
    ((__v) && !(__r)) |=> ((__v) && $stable(__d)));
`define NDP_ASSERT_INIT(__name, __cond) \
  initial begin : __name \
    assert (__cond); \
  end
`elsif FORMAL
`define NDP_ASSERT(__name, __cond) \
  always @(posedge clk_i) begin \
    if (rst_ni) assert (__cond); \
  end
`define NDP_ASSERT_STREAM(__name, __v, __r, __d)
`define NDP_ASSERT_INIT(__name, __cond)
`else
`define NDP_ASSERT(__name, __cond)
`define NDP_ASSERT_STREAM(__name, __v, __r, __d)
`define NDP_ASSERT_INIT(__name, __cond)
`endif

`endif  // NDP_ASSERT_SVH
