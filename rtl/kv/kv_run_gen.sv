// kv_run_gen: bank addressing of one channel-side access ("run") of the KV transpose buffer.
//
// The buffer holds two windows of W tokens x N channels (N = H x C) in P banks. Element (t, n) of
// buffer `buf` lives in bank (t + n) mod P at address buf*W*NB + t*NB + n/P (NB = N/P), so both
// access shapes touch each bank at most once:
//   * token side:   token t, channels nb*P .. nb*P+P-1        -> banks (t + i) mod P, one address
//   * channel side: channel n, tokens t .. t+cnt-1 (cnt <= P) -> banks (t + n + i) mod P
// A run is the channel-side access that fills beat positions off .. off+cnt-1 of a channel-major
// beat (element index n*w + t of the window): cnt = min(w - t, P - off). With w a multiple of P
// every run is a whole beat; a partial window with w mod P != 0 needs more runs than beats.
// The caller keeps rem = w - t in a register (next value: w at a channel end, else rem - cnt).
//
/// Purely combinational.
module kv_run_gen #(
  parameter int unsigned P = 16,    // elements per beat (power of two)
  parameter int unsigned W = 32,    // tokens per window
  parameter int unsigned N = 128,   // channels per token (H x C), multiple of P
  localparam int unsigned NB = N / P,
  localparam int unsigned PW = $clog2(P),
  localparam int unsigned TW = $clog2(W + 1),
  localparam int unsigned NW = (N > 1) ? $clog2(N) : 1,
  localparam int unsigned AW = $clog2(2 * W * NB)
) (
  input  logic            buf_i,    // which half of the double buffer
  input  logic [NW-1:0]   n_i,      // channel
  input  logic [TW-1:0]   t_i,      // first token of the run
  input  logic [PW-1:0]   off_i,    // first beat position of the run
  input  logic [TW-1:0]   rem_i,    // tokens of the channel from t_i on: w - t_i, 1..W (kept in a
                                    // register by the caller, so no subtraction here)
  output logic [PW:0]     cnt_o,    // elements in the run, 1..P
  output logic [P-1:0]    en_o,     // bank b holds one of the run's elements
  output logic [P*PW-1:0] idx_o,    // for bank b: index i of that element (beat position off_i + i)
  output logic [P*AW-1:0] addr_o,   // for bank b: its address
  output logic            beat_end_o,  // the run completes the beat
  output logic            chan_end_o   // the run reaches token w - 1 of the channel
);
  logic [TW-1:0] rem_t;
  logic [PW:0]   rem_p;

  always_comb begin
    rem_t = rem_i;
    rem_p = (PW + 1)'(P) - (PW + 1)'(off_i);
    cnt_o = (32'(rem_t) < 32'(rem_p)) ? (PW + 1)'(rem_t) : rem_p;
    beat_end_o = (cnt_o == rem_p);
    chan_end_o = (32'(cnt_o) == 32'(rem_t));
  end

  for (genvar b = 0; b < P; b++) begin : gen_bank
    logic [PW-1:0] idx;
    logic [31:0]   row;
    // i = (b - t - n) mod P: the run element that falls into bank b
    assign idx = PW'(b) - PW'(t_i) - PW'(n_i);
    assign row = 32'(t_i) + 32'(idx);
    assign en_o[b] = (32'(idx) < 32'(cnt_o));
    assign idx_o[b*PW +: PW] = idx;
    assign addr_o[b*AW +: AW] = AW'((buf_i ? W * NB : 0) + row * NB + (32'(n_i) >> PW));
  end
endmodule
