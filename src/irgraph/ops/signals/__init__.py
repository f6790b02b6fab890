"""Signal processing ops (OpenVINO spec category "signals"): Fourier transforms, STFT."""
