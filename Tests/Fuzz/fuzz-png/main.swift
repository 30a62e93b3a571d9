// libFuzzer target: the PNG decoder (scripts/fuzz.sh).
import DecoderFuzzing

DecoderFuzzing.run { DecoderFuzzing.decode($0, $1, as: .png) }
