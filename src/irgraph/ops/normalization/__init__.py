"""Ops of OpenVINO's 'normalization' spec category."""
