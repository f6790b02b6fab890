"""Ops of OpenVINO's 'condition' spec category."""
