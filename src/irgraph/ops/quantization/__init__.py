"""Ops of OpenVINO's 'quantization' spec category."""
