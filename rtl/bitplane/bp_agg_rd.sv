// bp_agg_rd: read sequencer of bp_aggregator. Walks the plane blocks of a full buffer in the
// spec's storage order (section 2.2) and issues one bank read per output beat.
//
/// Registers: buffer select, slot and beat counters, and the beat descriptor that travels with
/// the one-cycle RAM read (`rd_*` outputs are valid the cycle after `issue_o`). `issue_o` is
/// combinational from the registered state and the credit input, never from the output ready.
`include "ndp_assert.svh"

module bp_agg_rd #(
  parameter int unsigned ElemBits      = 16,
  parameter int unsigned ExpBits       = 8,
  parameter int unsigned Lanes         = 16,
  parameter int unsigned MaxChunkElems = 32768,
  localparam int unsigned WordBits = Lanes * ElemBits,
  localparam int unsigned OutBytes = WordBits / 8,
  localparam int unsigned WordsPerBuf = (MaxChunkElems + WordBits - 1) / WordBits,
  localparam int unsigned AddrW = $clog2(2 * WordsPerBuf),
  localparam int unsigned NW = $clog2(MaxChunkElems + 1),
  localparam int unsigned BankW = $clog2(ElemBits),
  localparam int unsigned NbW = $clog2(OutBytes + 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // buffer state from the parent
  input  logic [1:0]          buf_full_i,
  input  logic [2*NW-1:0]     buf_nm1_i,      // elements - 1 of buffer 1 and 0
  input  logic [1:0]          buf_expbyte_i,
  input  logic [1:0]          buf_last_i,
  output logic                release_o,      // last beat of the buffer issued this cycle
  output logic                release_buf_o,
  // read issue
  input  logic                credit_i,       // room downstream for one more beat
  output logic                issue_o,
  output logic [AddrW-1:0]    raddr_o,
  // descriptor of the beat whose RAM data arrives this cycle
  output logic                rd_valid_o,
  output logic                rd_expbyte_o,   // beat is from the EXPBYTE plane
  output logic [BankW-1:0]    rd_bank_o,      // bit-plane bank to forward
  output logic [2:0]          rd_slice_o,     // EXPBYTE: which eighth of the word
  output logic [NbW-1:0]      rd_nbytes_o,
  output logic [7:0]          rd_plane_o,
  output logic                rd_plane_last_o,
  output logic                rd_chunk_last_o,
  output logic                rd_last_o
);
  localparam int unsigned ManBits = (ExpBits == 0) ? 0 : ElemBits - 1 - ExpBits;
  localparam int unsigned SlotW = $clog2(ElemBits + 1);
  localparam int unsigned WordSh = $clog2(WordBits);
  localparam int unsigned ByteSh = $clog2(OutBytes);
  localparam int unsigned BeatW = NW;

  logic             buf_q;
  logic [SlotW-1:0] slot_q, nslots;
  logic [BeatW-1:0] beat_q, lastbeat, bit_lastbeat, eb_lastbeat;
  logic [NW-1:0]    nm1;
  logic             ebuf, eb_slot, last_beat, last_slot;
  logic [7:0]       plane;
  logic [NbW-1:0]   nbytes;

  assign nm1  = buf_nm1_i[buf_q*NW +: NW];
  assign ebuf = buf_expbyte_i[buf_q] && (ExpBits != 0);

  // Plane block geometry of this chunk (n elements), all by slicing n - 1: a bit-plane block has
  // ceil(n/8) bytes in ceil(n/WordBits) beats, the last holding ((n-1) >> 3) mod OutBytes + 1
  // bytes; the EXPBYTE block has n bytes in ceil(n/OutBytes) beats, the last (n-1) mod OutBytes + 1.
  assign bit_lastbeat = nm1 >> WordSh;
  assign eb_lastbeat  = nm1 >> ByteSh;

  // Storage order: sign, exponent (bit-planes MSB first, or the one EXPBYTE block), mantissa.
  always_comb begin
    eb_slot = 1'b0;
    plane   = 8'(ElemBits - 1) - 8'(slot_q);
    nslots  = SlotW'(ElemBits);
    if (ebuf) begin
      nslots = SlotW'(ManBits + 2);
      if (slot_q == SlotW'(1)) begin
        eb_slot = 1'b1;
        plane   = bp_pkg::PlaneExpByte;
      end else if (slot_q != '0) begin
        plane = 8'(ManBits + 1) - 8'(slot_q);
      end
    end
  end

  assign lastbeat  = eb_slot ? eb_lastbeat : bit_lastbeat;
  assign last_beat = (beat_q == lastbeat);
  assign last_slot = (slot_q == nslots - 1'b1);
  always_comb begin
    if (!last_beat) nbytes = NbW'(OutBytes);
    else if (eb_slot) nbytes = NbW'(nm1[ByteSh-1:0]) + NbW'(1);
    else nbytes = NbW'(nm1[WordSh-1:3]) + NbW'(1);
  end

  assign issue_o       = buf_full_i[buf_q] && credit_i;
  assign raddr_o       = {buf_q, eb_slot ? beat_q[3 +: AddrW-1] : beat_q[0 +: AddrW-1]};
  assign release_o     = issue_o && last_beat && last_slot;
  assign release_buf_o = buf_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_q  <= 1'b0;
      slot_q <= '0;
      beat_q <= '0;
    end else if (issue_o) begin
      if (!last_beat) begin
        beat_q <= beat_q + 1'b1;
      end else begin
        beat_q <= '0;
        if (last_slot) begin
          slot_q <= '0;
          buf_q  <= !buf_q;
        end else begin
          slot_q <= slot_q + 1'b1;
        end
      end
    end
  end

  // Beat descriptor, aligned with the RAM's registered read data.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rd_valid_o <= 1'b0;
    else rd_valid_o <= issue_o;
  end
  always_ff @(posedge clk_i) begin
    if (issue_o) begin
      rd_expbyte_o    <= eb_slot;
      rd_bank_o       <= plane[BankW-1:0];
      rd_slice_o      <= beat_q[2:0];
      rd_nbytes_o     <= nbytes;
      rd_plane_o      <= plane;
      rd_plane_last_o <= last_beat;
      rd_chunk_last_o <= last_beat && last_slot;
      rd_last_o       <= last_beat && last_slot && buf_last_i[buf_q];
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(geometry_a, WordsPerBuf >= 2 && OutBytes == WordBits / 8 &&
                               (ExpBits == 0 || ExpBits <= 8))
  `NDP_ASSERT(n_legal_a, !buf_full_i[buf_q] || 32'(nm1) < MaxChunkElems)
  `NDP_ASSERT(slot_in_range_a, !buf_full_i[buf_q] || slot_q < nslots)
  `NDP_ASSERT(beat_in_range_a, !buf_full_i[buf_q] || beat_q <= lastbeat)
  `NDP_ASSERT(nbytes_legal_a, !issue_o || (nbytes != '0 && nbytes <= NbW'(OutBytes)))
endmodule
