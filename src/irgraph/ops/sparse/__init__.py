"""Ops of OpenVINO's 'sparse' spec category."""
