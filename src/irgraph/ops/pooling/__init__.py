"""Ops of OpenVINO's 'pooling' spec category."""
